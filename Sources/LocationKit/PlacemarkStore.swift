import Foundation
import GeoModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The persisted "current placemark" (the city shown to the user), one JSON file.
///
/// Saving is atomic and durable: the JSON goes to a new temporary file in the same directory, which is
/// flushed (`fsync`) and then renamed over the target, and the directory is flushed so the rename
/// survives a crash. A reader therefore sees the old file or the new one, never a partial write; a
/// failed save leaves the old file as it was and removes its temporary file.
///
/// File format (version 1):
/// ```json
/// {"format":"offline-geocoder.current-placemark","version":1,"savedAt":"2025-01-01T00:00:00Z",
///  "placemark":{ ...Placemark's Codable fields... }}
/// ```
public struct PlacemarkStore: Sendable {
    public static let format = "offline-geocoder.current-placemark"
    public static let version = 1

    /// Why a load or save failed.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file exists but is not a current-placemark file of a version we read.
        case corrupt(String)
        /// A system call failed (operation, errno text).
        case io(String)

        public var description: String {
            switch self {
            case .corrupt(let s): return "corrupt: \(s)"
            case .io(let s): return s
            }
        }
    }

    /// What the file holds.
    public struct Record: Sendable, Hashable, Codable {
        public var format: String
        public var version: Int
        public var savedAt: Date
        public var placemark: Placemark
    }

    public let url: URL

    public init(url: URL) { self.url = url }

    /// The stored placemark; `nil` when there is no file. Throws ``Failure/corrupt(_:)`` for a file that
    /// is empty, not JSON, of another format or version, and ``Failure/io(_:)`` when it cannot be read.
    public func load() throws(Failure) -> Placemark? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return nil }
            throw .io("cannot read: \(error.localizedDescription)")
        }
        let record: Record
        do {
            record = try Self.decoder.decode(Record.self, from: data)
        } catch {
            throw .corrupt(data.isEmpty ? "empty file" : "not a current-placemark file (\(Self.describe(error)))")
        }
        guard record.format == Self.format else { throw .corrupt("format is \"\(record.format)\"") }
        guard record.version == Self.version else { throw .corrupt("unsupported version \(record.version)") }
        return record.placemark
    }

    /// Replaces the file with `placemark`, atomically (temporary file, fsync, rename, fsync directory).
    public func save(_ placemark: Placemark, at date: Date = Date()) throws(Failure) {
        let record = Record(format: Self.format, version: Self.version, savedAt: date, placemark: placemark)
        let data: Data
        do { data = try Self.encoder.encode(record) } catch { throw .io("cannot encode: \(error)") }

        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io("cannot create \(temporary): \(Self.errnoText())") }
        var committed = false
        defer { if !committed { unlink(temporary) } }
        do {
            defer { close(fd) }
            let failure: Failure? = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Failure? in
                var offset = 0
                while offset < buffer.count {
                    let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return .io("cannot write \(temporary): \(Self.errnoText())")
                    }
                    offset += n
                }
                return nil
            }
            if let failure { throw failure }
            guard fsync(fd) == 0 else { throw .io("cannot fsync \(temporary): \(Self.errnoText())") }
        }
        guard rename(temporary, url.path) == 0 else {
            throw .io("cannot rename \(temporary) to \(url.path): \(Self.errnoText())")
        }
        committed = true
        // Make the rename itself durable. Failing here is not worth an error: the new file is in place.
        let dirfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            close(dirfd)
        }
    }

    private static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted]
        e.dateEncodingStrategy = .iso8601
        return e
    }

    private static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "bad value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "\(error)"
        }
    }
}
