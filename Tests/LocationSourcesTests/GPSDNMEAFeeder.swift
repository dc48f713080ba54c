import Foundation
import Synchronization
import GeoModel

/// Plays a receiver into a pty: every `interval`, one GGA + RMC cycle for a new position and the next
/// second of receiver time, and remembers what it sent so TPVs can be checked against it.
///
/// Positions are whole micro-minutes (the 6 decimals the sentences carry), so the expected decimal
/// degrees are exact up to double rounding, far inside the test's 1e-7° tolerance.
final class GPSDNMEAFeeder: Sendable {
    /// Receiver time of cycle 0: 2023-11-14T22:13:20Z. Cycle n is n seconds later.
    static let baseTime = Date(timeIntervalSince1970: 1_700_000_000)

    private let terminal: GPSDPseudoTerminal
    private let interval: TimeInterval
    private let sent = Mutex<[Int: Coordinate]>([:])
    private let stopped = Mutex(false)

    init(terminal: GPSDPseudoTerminal, interval: TimeInterval) {
        self.terminal = terminal
        self.interval = interval
    }

    /// Feeds from a thread of its own, not a task: a receiver keeps talking whatever Swift's
    /// cooperative threads are busy with, and a stalled feed would look like a dead receiver to gpsd.
    func start() {
        let thread = Thread { [self] in
            var cycle = 0
            while !stopped.withLock({ $0 }) {
                let (text, coordinate) = Self.cycle(cycle)
                terminal.drain()
                if terminal.write(text) { sent.withLock { $0[cycle] = coordinate } }
                cycle += 1
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.name = "NMEA feeder"
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    /// What was sent for the receiver time `timestamp`, if anything.
    func sentPosition(at timestamp: Date) -> Coordinate? {
        let offset = timestamp.timeIntervalSince(Self.baseTime)
        guard offset >= 0, offset < 100_000, abs(offset - offset.rounded()) < 1e-3 else { return nil }
        return sent.withLock { $0[Int(offset.rounded())] }
    }

    /// Every position sent so far.
    var sentPositions: [Coordinate] { sent.withLock { Array($0.values) } }

    /// Whether `timestamp` is a receiver time from this feeder (rather than the client's reception time).
    static func isReceiverTime(_ timestamp: Date) -> Bool {
        let offset = timestamp.timeIntervalSince(baseTime)
        return offset >= 0 && offset < 100_000
    }

    /// Sentences of cycle `n` and the position they carry. Munich, moving north-east a little each cycle.
    static func cycle(_ n: Int) -> (String, Coordinate) {
        let latMicroMinutes = 7_038_000 + n * 6_000       // 48° 07.038000'
        let lonMicroMinutes = 31_002_000 + n * 12_000     // 011° 31.002000'
        let coordinate = Coordinate(latitude: 48 + Double(latMicroMinutes) / 60e6,
                                    longitude: 11 + Double(lonMicroMinutes) / 60e6)
        let lat = String(format: "%02d%02d.%06d,N", 48, latMicroMinutes / 1_000_000, latMicroMinutes % 1_000_000)
        let lon = String(format: "%03d%02d.%06d,E", 11, lonMicroMinutes / 1_000_000, lonMicroMinutes % 1_000_000)

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                            from: baseTime.addingTimeInterval(Double(n)))
        let hms = String(format: "%02d%02d%02d.00", parts.hour!, parts.minute!, parts.second!)
        let dmy = String(format: "%02d%02d%02d", parts.day!, parts.month!, parts.year! % 100)

        let gga = sentence("GPGGA,\(hms),\(lat),\(lon),1,08,0.9,545.4,M,46.9,M,,")
        let rmc = sentence("GPRMC,\(hms),A,\(lat),\(lon),022.4,084.4,\(dmy),,")
        return (gga + rmc, coordinate)
    }

    /// `$body*HH\r\n`, HH being the XOR of the body's bytes (NMEA 0183 checksum).
    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$\(body)*\(String(format: "%02X", checksum))\r\n"
    }
}
