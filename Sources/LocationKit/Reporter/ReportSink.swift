import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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

/// POSTs each batch as a JSON array to a URL with `URLSession`; 2xx is delivered, anything else (other
/// statuses, connection refused or reset, timeouts) is a failure to retry.
final class HTTPReportSink: ReportSink {
    let url: URL
    let headers: [String: String]
    let timeout: TimeInterval
    private let session: URLSession

    init(url: URL, headers: [String: String], timeout: TimeInterval) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 2
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
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
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = Self.body(batch)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let url = self.url
        session.dataTask(with: request) { _, response, error in
            if let error {
                completion(.failure(DeliveryFailure(message: "POST \(url): \(Self.describe(error))")))
            } else if let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) {
                completion(.success(()))
            } else {
                let status = (response as? HTTPURLResponse).map { "HTTP \($0.statusCode)" } ?? "no HTTP response"
                completion(.failure(DeliveryFailure(message: "POST \(url): \(status)")))
            }
        }.resume()
    }

    func invalidate() {
        session.invalidateAndCancel()
    }

    /// Words for a URLSession error: Foundation on Linux often gives only a domain and a code.
    private static func describe(_ error: any Error) -> String {
        let ns = error as NSError
        if let text = ns.userInfo[NSLocalizedDescriptionKey] as? String, !text.isEmpty { return text }
        if let code = (error as? URLError)?.code {
            switch code {
            case .timedOut: return "timed out (no answer within the request timeout)"
            case .cannotConnectToHost: return "cannot connect to the server"
            case .cannotFindHost, .dnsLookupFailed: return "cannot find the server"
            case .networkConnectionLost: return "the connection was lost"
            case .notConnectedToInternet: return "not connected to a network"
            case .badServerResponse, .zeroByteResource: return "the server sent no valid response"
            case .cancelled: return "cancelled"
            default: break
            }
        }
        return "\(ns.domain) \(ns.code)"
    }
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
