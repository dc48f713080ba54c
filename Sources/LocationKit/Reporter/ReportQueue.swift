import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A queued report: the report, the exact bytes that are sent for it, and where its line ends.
struct QueuedReport: Sendable, Hashable {
    var report: PositionReport
    /// The report's JSON (no newline): stored once, sent as is.
    var json: Data
    /// The segment holding it, and the offset just past its line there.
    var segment: UInt64
    var end: UInt64
}

/// The reporter's on-disk queue: unsent reports survive crashes, kills and outages, in order.
///
/// ## Files (in the queue directory)
/// - `segment-<16 digits>.log`: append-only. One line per report: 8 hex digits of the CRC-32 of the
///   JSON, a space, the report's JSON, `\n`. A new segment starts when the current one would pass
///   `segmentSize` bytes, so acknowledged data can be deleted a whole file at a time.
/// - `ack.json`: `{"format":"offline-geocoder.report-queue-ack","version":1,"segment":S,"offset":O,"seq":Q}`:
///   everything before byte O of segment S (and all earlier segments) has been delivered; Q is the seq
///   of the last delivered report. Replaced atomically (temporary file, fsync, rename, fsync directory).
/// - `lock`: held with `flock` while a queue is open, so two reporters never share a directory. The
///   kernel drops the lock when the process dies, however it dies.
///
/// ## Durability
/// - ``append(_:)`` writes the line with one `write` and `fsync`s the segment before returning; a new
///   segment's directory entry is fsynced before anything is written to it. A report ``append(_:)``
///   returned for is on disk.
/// - ``acknowledge(_:)`` makes the new ack durable before the delivered segments are deleted.
///
/// ## Recovery (``init(directory:segmentSize:)``)
/// - A crash mid-append leaves a torn tail: bytes after the last `\n`, or a last line whose CRC or
///   JSON is wrong (a file extended with zeros). It is detected, cut off (the file is truncated to its
///   last good line), and reported in ``warnings``. That report's `append` never returned, so nothing
///   that was acknowledged to the caller is lost.
/// - A bad line with good lines after it (real corruption, not a crash) is skipped with a warning.
/// - A crash between delivery and the ack leaves the ack behind: those reports are sent again, with
///   the same ids (at-least-once). A crash between the ack and deleting segments leaves segments
///   that the next open deletes. Leftover `*.tmp` files from an interrupted ack are removed.
/// - seq numbers continue after the largest seq found in the ack or the segments.
///
/// Not thread-safe: the ``PositionReporter`` uses it from its serial queue only.
final class ReportQueue {
    struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable { case locked, io }
        var kind: Kind
        var message: String
        var description: String { message }
    }

    struct Ack: Codable, Sendable, Hashable {
        var format = ReportQueue.ackFormat
        var version = 1
        var segment: UInt64
        var offset: UInt64
        var seq: UInt64
    }

    static let ackFormat = "offline-geocoder.report-queue-ack"

    let directory: URL
    let segmentSize: UInt64
    /// Problems found while opening (torn tail cut off, corrupt lines skipped, unreadable ack).
    private(set) var warnings: [String] = []
    private(set) var ack: Ack
    private(set) var nextSeq: UInt64

    private var records: [QueuedReport] = []
    private var head = 0
    private var lockFD: Int32 = -1
    private var appendFD: Int32 = -1
    private var currentSegment: UInt64
    private var currentSize: UInt64 = 0
    private var oldestSegment: UInt64

    /// Opens (creating it if needed) the queue in `directory`, recovering from whatever a crash left.
    init(directory: URL, segmentSize: Int = 1 << 20) throws(Failure) {
        self.directory = directory
        self.segmentSize = UInt64(max(1, segmentSize))
        let dir = directory.path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(kind: .io, message: "cannot create queue directory \(dir): \(error.localizedDescription)")
        }
        do {
            lockFD = try DurableFile.openFile(dir + "/lock", O_RDWR | O_CREAT)
        } catch {
            throw Failure(kind: .io, message: error.message)
        }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno == EWOULDBLOCK ? "in use by another reporter" : DurableFile.errnoText()
            closeDescriptor(lockFD)
            throw Failure(kind: .locked, message: "queue \(dir) is \(reason)")
        }
        // From here on, `deinit` releases the lock if recovery throws.
        ack = Ack(segment: 0, offset: 0, seq: 0)
        nextSeq = 1
        currentSegment = 1
        oldestSegment = 1
        do {
            try recover()
        } catch {
            throw Failure(kind: .io, message: error.message)
        }
    }

    deinit { close() }

    /// Releases the files and the lock. Nothing is lost: everything appended is already on disk.
    func close() {
        if appendFD >= 0 { closeDescriptor(appendFD) }
        if lockFD >= 0 { closeDescriptor(lockFD) }
        appendFD = -1
        lockFD = -1
    }

    /// Reports not yet acknowledged, oldest first.
    var pending: ArraySlice<QueuedReport> { records[head...] }
    var pendingCount: Int { records.count - head }

    /// Up to `count` reports from the oldest unacknowledged one.
    func peek(_ count: Int) -> [QueuedReport] {
        Array(records[head..<min(records.count, head + max(1, count))])
    }

    // MARK: - Append

    /// Queues a report built for the next seq, durably: when this returns, it is on disk. On failure
    /// the segment is cut back to where it was and nothing is queued.
    @discardableResult
    func append(_ make: (UInt64) -> PositionReport) throws(Failure) -> QueuedReport {
        guard appendFD >= 0 else { throw Failure(kind: .io, message: "queue \(directory.path) is closed") }
        let report = make(nextSeq)
        let json: Data
        do { json = try report.jsonData() } catch {
            throw Failure(kind: .io, message: "cannot encode report \(report.seq): \(error)")
        }
        var line = Data(String(format: "%08x ", CRC32.checksum(json)).utf8)
        line.append(json)
        line.append(0x0A)
        do throws(DurableFile.Failure) {
            if currentSize > 0 && currentSize + UInt64(line.count) > segmentSize { try startSegment(currentSegment + 1) }
            let path = segmentPath(currentSegment)
            do {
                try DurableFile.writeAll(appendFD, line, path: path)
                try DurableFile.sync(appendFD, path: path)
            } catch {
                // Leave no partial line behind for the next append to follow.
                try? DurableFile.truncateFile(appendFD, to: currentSize, path: path)
                throw error
            }
        } catch {
            throw Failure(kind: .io, message: error.message)
        }
        currentSize += UInt64(line.count)
        nextSeq = report.seq + 1
        let queued = QueuedReport(report: report, json: json, segment: currentSegment, end: currentSize)
        records.append(queued)
        return queued
    }

    // MARK: - Acknowledge

    /// Marks the oldest `count` pending reports delivered. They leave ``pending`` even when the ack
    /// cannot be written (the error is thrown): the reports were delivered, and a lost ack only means
    /// they are sent again after a restart.
    func acknowledge(_ count: Int) throws(Failure) {
        let n = min(max(0, count), pendingCount)
        guard n > 0 else { return }
        let last = records[head + n - 1]
        head += n
        if head > 1024 && head * 2 > records.count {
            records.removeFirst(head)
            head = 0
        }
        var new = Ack(segment: last.segment, offset: last.end, seq: last.report.seq)
        // Everything in that segment delivered and a later one exists: move to the start of the next
        // segment that has anything, so the delivered segments can go.
        if let next = pending.first, next.segment > last.segment {
            new.segment = next.segment
            new.offset = 0
        } else if pending.isEmpty, last.segment < currentSegment {
            new.segment = currentSegment
            new.offset = 0
        }
        do {
            let bytes = try JSONEncoder().encode(new)
            try DurableFile.replace(ackPath, with: bytes)
        } catch let error as DurableFile.Failure {
            throw Failure(kind: .io, message: error.message)
        } catch {
            throw Failure(kind: .io, message: "cannot encode the ack: \(error)")
        }
        ack = new
        while oldestSegment < ack.segment {
            unlink(segmentPath(oldestSegment))
            oldestSegment += 1
        }
    }

    // MARK: - Recovery

    private var ackPath: String { directory.path + "/ack.json" }

    func segmentPath(_ number: UInt64) -> String {
        directory.path + "/" + String(format: "segment-%016llu.log", number)
    }

    private func recover() throws(DurableFile.Failure) {
        let dir = directory.path
        DurableFile.removeTemporaryFiles(in: dir)
        if let data = try DurableFile.readFile(ackPath) {
            if let decoded = try? JSONDecoder().decode(Ack.self, from: data), decoded.format == Self.ackFormat,
               decoded.version == 1 {
                ack = decoded
            } else {
                warnings.append("\(ackPath) is unreadable; every report in the queue will be sent again")
            }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        var segments = names.compactMap(Self.segmentNumber).sorted()
        for number in segments where number < ack.segment { unlink(segmentPath(number)) }
        segments.removeAll { $0 < ack.segment }

        var maxSeq = ack.seq
        for (index, number) in segments.enumerated() {
            let isLast = index == segments.count - 1
            let path = segmentPath(number)
            let data = try DurableFile.readFile(path) ?? Data()
            var start = 0
            if number == ack.segment {
                if ack.offset > UInt64(data.count) {
                    warnings.append("\(path): the ack points past its end (\(ack.offset) > \(data.count) bytes)")
                }
                start = Int(min(ack.offset, UInt64(data.count)))
            }
            let scan = Self.scan(data, from: start)
            for record in scan.records {
                records.append(QueuedReport(report: record.report, json: record.json, segment: number,
                                            end: UInt64(record.end)))
                maxSeq = max(maxSeq, record.report.seq)
            }
            for offset in scan.corruptLines {
                warnings.append("\(path): skipped a corrupt line at byte \(offset)")
            }
            if scan.goodEnd < data.count {
                let torn = data.count - scan.goodEnd
                if isLast {
                    let fd = try DurableFile.openFile(path, O_WRONLY)
                    defer { closeDescriptor(fd) }
                    try DurableFile.truncateFile(fd, to: UInt64(scan.goodEnd), path: path)
                    try DurableFile.sync(fd, path: path)
                    warnings.append("\(path): cut off a torn last write of \(torn) bytes (a report being queued when the process stopped)")
                } else {
                    warnings.append("\(path): ignored \(torn) unreadable bytes at its end")
                }
            }
        }
        // Reports must leave in seq order; a queue that was written by one reporter at a time always is.
        records.sort { $0.report.seq < $1.report.seq }
        nextSeq = maxSeq + 1
        oldestSegment = segments.first ?? max(1, ack.segment)

        if let last = segments.last {
            currentSegment = last
            appendFD = try DurableFile.openFile(segmentPath(last), O_WRONLY | O_APPEND)
            currentSize = try DurableFile.sizeOf(appendFD, path: segmentPath(last))
        } else {
            try startSegment(max(1, ack.segment))
            oldestSegment = currentSegment
        }
    }

    /// Creates segment `number`, makes its directory entry durable, and appends to it from now on.
    private func startSegment(_ number: UInt64) throws(DurableFile.Failure) {
        let path = segmentPath(number)
        let fd = try DurableFile.openFile(path, O_WRONLY | O_CREAT | O_APPEND)
        do {
            try DurableFile.syncDirectory(directory.path)
        } catch {
            closeDescriptor(fd)
            throw error
        }
        if appendFD >= 0 { closeDescriptor(appendFD) }
        appendFD = fd
        currentSegment = number
        currentSize = (try? DurableFile.sizeOf(fd, path: path)) ?? 0
    }

    static func segmentNumber(_ name: String) -> UInt64? {
        guard name.hasPrefix("segment-"), name.hasSuffix(".log") else { return nil }
        return UInt64(name.dropFirst("segment-".count).dropLast(".log".count))
    }

    struct Scan {
        var records: [(report: PositionReport, json: Data, end: Int)] = []
        /// Start offsets of bad lines that have good lines after them.
        var corruptLines: [Int] = []
        /// Offset just past the last good line (or the start): everything after it is a torn tail.
        var goodEnd: Int
    }

    /// Parses queue lines from `start`. A line is good when it ends with `\n`, its CRC matches and its
    /// JSON decodes as a report.
    static func scan(_ data: Data, from start: Int) -> Scan {
        var scan = Scan(goodEnd: start)
        var badSinceGood: [Int] = []
        let bytes = [UInt8](data)
        var position = start
        while position < bytes.count {
            guard let newline = bytes[position...].firstIndex(of: 0x0A) else { break }
            if let record = parseLine(bytes[position..<newline]) {
                scan.records.append((record.report, record.json, newline + 1))
                scan.corruptLines.append(contentsOf: badSinceGood)
                badSinceGood = []
                scan.goodEnd = newline + 1
            } else {
                badSinceGood.append(position)
            }
            position = newline + 1
        }
        return scan
    }

    private static let decoder = JSONDecoder()

    private static func parseLine(_ line: ArraySlice<UInt8>) -> (report: PositionReport, json: Data)? {
        guard line.count > 9, line[line.startIndex + 8] == 0x20,
              let crc = UInt32(String(decoding: line.prefix(8), as: UTF8.self), radix: 16) else { return nil }
        let json = line.dropFirst(9)
        guard CRC32.checksum(json) == crc else { return nil }
        let data = Data(json)
        guard let report = try? decoder.decode(PositionReport.self, from: data) else { return nil }
        return (report, data)
    }
}

/// `close(2)`, under a name that ``ReportQueue/close()`` does not shadow.
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
