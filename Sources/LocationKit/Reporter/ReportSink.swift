import Dispatch
import CCurlLoader
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a ``PositionReporter`` delivers batches. One batch is outstanding at a time.
protocol ReportSink: Sendable {
    /// Delivers `batch` (oldest first) and calls `completion` exactly once: `.success` only when the
    /// destination has it (HTTP 2xx; the file fsynced).
    func send(_ batch: [QueuedReport], completion: @escaping @Sendable (Result<Void, DeliveryFailure>) -> Void)
    /// Abandons anything in flight (its completion may still be called, with a failure) and releases
    /// resources. Called once, when the reporter closes.
    func invalidate()
}

/// Why a batch was not delivered (it will be retried).
struct DeliveryFailure: Error, Sendable, Hashable, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// POSTs each batch as a JSON array to a URL with libcurl; 2xx is delivered, anything else (other
/// statuses, connection refused or reset, timeouts) is a failure to retry.
///
/// libcurl is loaded on the first send (`CCurlLoader`), not linked, so a process that never reports
/// over HTTP never loads it: linked (as Foundation's `URLSession` is), it and its ~30 libraries cost
/// every start of `geocode` a quarter of a one-point run. Requests run one at a time on the sink's
/// own serial queue; libcurl takes proxies from `http_proxy`, `https_proxy` and `no_proxy`, follows
/// redirects (keeping the POST) and verifies TLS certificates with the system's store.
final class HTTPReportSink: ReportSink, @unchecked Sendable {
    // @unchecked: `cancelFlag` is written with an atomic store (invalidate) and read with atomic loads
    // by the transfer; everything else is immutable.
    let url: URL
    let headers: [String: String]
    let timeout: TimeInterval
    private let queue = DispatchQueue(label: "LocationKit.HTTPReportSink")
    private let cancelFlag: UnsafeMutablePointer<Int32>

    init(url: URL, headers: [String: String], timeout: TimeInterval) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        cancelFlag = .allocate(capacity: 1)
        cancelFlag.initialize(to: 0)
    }

    deinit {
        // Every transfer's closure holds the sink, so none is running now.
        cancelFlag.deallocate()
    }

    /// The request body: `[` report `,` report ... `]`, each report's stored JSON unchanged.
    static func body(_ batch: [QueuedReport]) -> Data {
        var body = Data("[".utf8)
        for (i, item) in batch.enumerated() {
            if i > 0 { body.append(UInt8(ascii: ",")) }
            body.append(item.json)
        }
        body.append(UInt8(ascii: "]"))
        return body
    }

    func send(_ batch: [QueuedReport], completion: @escaping @Sendable (Result<Void, DeliveryFailure>) -> Void) {
        let body = Self.body(batch)
        queue.async {
            completion(self.post(body).mapError { DeliveryFailure(message: "POST \(self.url): \($0)") })
        }
    }

    func invalidate() {
        geocode_curl_cancel(cancelFlag)
    }

    /// One blocking POST; the failure is its reason in words.
    private func post(_ body: Data) -> Result<Void, Reason> {
        var lines = ["Content-Type: application/json"]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) where name.lowercased() != "content-type" {
            lines.append("\(name): \(value)")
        }
        if let value = headers.first(where: { $0.key.lowercased() == "content-type" })?.value {
            lines[0] = "Content-Type: \(value)"
        }
        var status = 0
        var message = [CChar](repeating: 0, count: 512)
        let milliseconds = Int(min(timeout * 1000, Double(Int32.max)).rounded(.up))
        let code = withCStrings(lines) { headerPointers in
            body.withUnsafeBytes { bytes in
                geocode_curl_post(url.absoluteString, headerPointers, headerPointers.count, bytes.baseAddress, bytes.count,
                                  milliseconds, cancelFlag, &status, &message, message.count)
            }
        }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch code {
        case 0: return (200..<300).contains(status) ? .success(()) : .failure(Reason("HTTP \(status)"))
        case -1: return .failure(Reason(text))
        default: return .failure(Reason(Self.describe(code: code, message: text)))
        }
    }

    /// A failure's words.
    struct Reason: Error, CustomStringConvertible {
        var description: String
        init(_ text: String) { description = text }
    }

    /// Words for libcurl's commonest failures (with its own message for the detail), else its message.
    private static func describe(code: Int32, message: String) -> String {
        switch Int(code) {
        case Int(GEOCODE_CURLE_OPERATION_TIMEDOUT): return "timed out (no answer within the request timeout): \(message)"
        case Int(GEOCODE_CURLE_COULDNT_CONNECT): return "cannot connect to the server: \(message)"
        case Int(GEOCODE_CURLE_COULDNT_RESOLVE_HOST): return "cannot find the server: \(message)"
        case Int(GEOCODE_CURLE_SEND_ERROR), Int(GEOCODE_CURLE_RECV_ERROR): return "the connection was lost: \(message)"
        case Int(GEOCODE_CURLE_GOT_NOTHING): return "the server sent no valid response: \(message)"
        case Int(GEOCODE_CURLE_ABORTED_BY_CALLBACK): return "cancelled"
        default: return message.isEmpty ? "libcurl error \(code)" : message
        }
    }
}

/// Runs `body` with C strings for `strings`, kept alive for the call.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) })
}

/// Appends each batch to a local NDJSON file (one report's JSON per line) and fsyncs it.
///
/// Exactly once, even across crashes: before appending, the file's last complete line is read, and if
/// its `id` is one of the batch's, the reports up to it are not written again (they got there before a
/// crash kept them from being acknowledged). A torn last line (a crash mid-append) is cut off first,
/// so the file is always whole lines. One reporter per file.
final class FileReportSink: ReportSink, @unchecked Sendable {
    // @unchecked: `fd` and `lastID` are only touched on `queue`.
    let url: URL
    private let queue = DispatchQueue(label: "LocationKit.FileReportSink")
    private var fd: Int32 = -1
    private var lastID: String?

    init(url: URL) {
        self.url = url
    }

    deinit {
        if fd >= 0 { _ = close(fd) }
    }

    func send(_ batch: [QueuedReport], completion: @escaping @Sendable (Result<Void, DeliveryFailure>) -> Void) {
        queue.async {
            do throws(DurableFile.Failure) {
                try self.openIfNeeded()
                var toWrite = batch[...]
                if let lastID = self.lastID, let i = batch.firstIndex(where: { $0.report.id == lastID }) {
                    toWrite = batch[(i + 1)...]
                }
                if !toWrite.isEmpty {
                    var bytes = Data()
                    for item in toWrite {
                        bytes.append(item.json)
                        bytes.append(0x0A)
                    }
                    try DurableFile.writeAll(self.fd, bytes, path: self.url.path)
                    try DurableFile.sync(self.fd, path: self.url.path)
                    self.lastID = toWrite.last!.report.id
                }
                completion(.success(()))
            } catch {
                // Start afresh next time: reopen, re-read the tail (cutting a partial write).
                if self.fd >= 0 { _ = close(self.fd) }
                self.fd = -1
                completion(.failure(DeliveryFailure(message: error.message)))
            }
        }
    }

    func invalidate() {
        queue.sync {
            if fd >= 0 { _ = close(fd) }
            fd = -1
        }
    }

    private func openIfNeeded() throws(DurableFile.Failure) {
        guard fd < 0 else { return }
        let path = url.path
        let existed = FileManager.default.fileExists(atPath: path)
        let opened = try DurableFile.openFile(path, O_RDWR | O_CREAT | O_APPEND)
        do {
            if !existed { try DurableFile.syncDirectory(url.deletingLastPathComponent().path) }
            lastID = try Self.repairTail(opened, path: path)
        } catch {
            _ = close(opened)
            throw error
        }
        fd = opened
    }

    /// Cuts a torn last line and returns the id of the last complete line (if it has one).
    static func repairTail(_ fd: Int32, path: String) throws(DurableFile.Failure) -> String? {
        let size = try DurableFile.sizeOf(fd, path: path)
        guard size > 0 else { return nil }
        let window = UInt64(256 * 1024)
        let start = size > window ? size - window : 0
        var tail = [UInt8](repeating: 0, count: Int(size - start))
        var filled = 0
        while filled < tail.count {
            let n = tail.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(start) + off_t(filled))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw DurableFile.Failure(message: "cannot read \(path): \(DurableFile.errnoText())")
            }
            if n == 0 { break }
            filled += n
        }
        tail = Array(tail[0..<filled])
        var end = tail.count
        if tail.last != 0x0A {
            guard let newline = tail.lastIndex(of: 0x0A) else {
                // No complete line in the window: cut only if the whole file is this one partial line.
                if start == 0 {
                    try DurableFile.truncateFile(fd, to: 0, path: path)
                    try DurableFile.sync(fd, path: path)
                }
                return nil
            }
            end = newline + 1
            try DurableFile.truncateFile(fd, to: start + UInt64(end), path: path)
            try DurableFile.sync(fd, path: path)
        }
        // The last complete line is tail[lineStart..<end-1].
        let lineEnd = end - 1
        let lineStart = tail[0..<lineEnd].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        struct Identified: Decodable { var id: String }
        return try? JSONDecoder().decode(Identified.self, from: Data(tail[lineStart..<lineEnd])).id
    }
}
