import Foundation
import GeoModel
import LocationSources
import Synchronization
import Testing
@testable import LocationKit

/// A placemark whose only change is its nearest-place distance is the same place: no save, no city
/// change, no region event; the latest distance is still on the placemark shown.
@Suite struct SamePlaceTests {
    /// Haidian as a locality cell answers it: the city level is the nearest populated place, `metres` away.
    static func cell(_ metres: Double, district: String = "Haidian", districtCode: String = "110108") -> Placemark {
        var p = Placemark.municipality("Beijing", code: "110000", district: district, districtCode: districtCode)
        p[.city] = .init(name: "Beijing", code: "1816670", provenance: .nearestPlace(metres: metres))
        p.localityIsProvinceFallback = false
        return p
    }

    @Test func onlyDistancesMayDiffer() throws {
        let a = Self.cell(120), b = Self.cell(480)
        #expect(a != b)  // == still sees the distance: the Codable/CLI value differs
        #expect(a.isSamePlace(as: b) && b.isSamePlace(as: a))
        // One storage with another per-query distance (the engine's own path).
        var c = a
        c.setNearestPlaceDistance(900)
        #expect(c != a && c.isSamePlace(as: a))
        #expect(c[.city].provenance == .nearestPlace(metres: 900))

        // Anything else is another place.
        #expect(!a.isSamePlace(as: Self.cell(120, district: "Chaoyang", districtCode: "110105")))
        var kind = a
        kind[.city].provenance = .nearestUnit(metres: 120)
        #expect(!a.isSamePlace(as: kind))
        var zone = a
        zone.timeZone = "Asia/Shanghai"
        #expect(!a.isSamePlace(as: zone))
        var lang = a
        lang[.city].language = "en"
        #expect(!a.isSamePlace(as: lang))
        // Other-language names are not the place (the Codable form drops them): a round trip is the same place.
        var names = a
        names[.city].names = ["zh": "北京"]
        #expect(a.isSamePlace(as: names))
        let decoded = try JSONDecoder().decode(Placemark.self, from: JSONEncoder().encode(names))
        #expect(decoded.isSamePlace(as: names))
        #expect(!a.isSamePlace(as: .haidian))  // inside the polygon vs nearest place
    }

    @Test func trackerKeepsTheLatestDistanceWithoutAChange() {
        var tracker = CityTracker(hysteresis: .default)
        let at = Coordinate(latitude: 39.9, longitude: 116.3)
        #expect(tracker.observe(Self.cell(120), at: at) == .init(currentChanged: true))
        #expect(tracker.observe(Self.cell(480), at: at) == .init(currentChanged: false))
        #expect(tracker.current?[.city].provenance == .nearestPlace(metres: 480))
        var same = Self.cell(120)
        same.setNearestPlaceDistance(77)
        #expect(tracker.observe(same, at: at) == .init(currentChanged: false))
        #expect(tracker.current?[.city].provenance == .nearestPlace(metres: 77))
        // Another district of the same city is a change of the current placemark, not of the city.
        #expect(tracker.observe(Self.cell(300, district: "Chaoyang", districtCode: "110105"), at: at)
            == .init(currentChanged: true))
    }

    /// The manager over a provider that answers one cell with a new distance on every fix: the file is
    /// written once, no city change, one region entry; the shown placemark has the last fix's distance.
    @Test func managerSavesAndMonitorsThePlaceNotTheDistance() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("current.json")
        let latitudes = (0..<12).map { 39.90 + Double($0) * 0.001 }
        let m = LocationManager(source: ScriptedSource(locations: track(latitudes, longitude: 116.3)),
                                geocoder: DistanceProvider(), currentPlacemarkFile: file)
        m.cityChangeHysteresis = .off
        let writes = Mutex<Set<UInt64>>([])
        let holders = Mutex<[FileHandle]>([])
        // Fix observers run on the manager's queue after the previous fix's save: every inode the file
        // has had is seen (each kept open, so a rewrite cannot reuse it).
        let id = m.addFixObserver { _ in
            guard let inode = try? FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64,
                  let h = try? FileHandle(forReadingFrom: file) else { return }
            if writes.withLock({ $0.insert(inode).inserted }) { holders.withLock { $0.append(h) } }
        }
        let regions = RegionBookDriver(.administrative("beijing", .code("1816670", level: .city)))
        _ = m.addFixObserver { regions.observe($0) }
        let events = await drive(m)
        m.removeFixObserver(id)
        defer { holders.withLock { for h in $0 { try? h.close() } } }
        #expect(events.warnings.isEmpty)
        #expect(events.cityChanges.isEmpty)
        #expect(writes.withLock { $0.count } == 1)
        let finalInode = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64
        #expect(finalInode.map { inode in writes.withLock { $0.contains(inode) } } == true)  // no save after the last observed fix
        let last = try #require(latitudes.last)
        #expect(m.currentPlacemark?[.city].provenance == .nearestPlace(metres: DistanceProvider.metres(last)))
        #expect(try PlacemarkStore(url: file).load()?[.city].provenance == .nearestPlace(metres: DistanceProvider.metres(latitudes[0])))
        #expect(regions.events == ["beijing inside"])
    }
}

/// One locality cell everywhere; the distance is the latitude's offset from 39.9 in metres (111 km/°).
final class DistanceProvider: PlacemarkProvider {
    static func metres(_ latitude: Double) -> Double { ((latitude - 39.9) * 111_000).rounded() }

    func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
        SamePlaceTests.cell(Self.metres(coordinate.latitude))
    }
}

/// A region book fed from fix observers, recording "identifier state" strings.
final class RegionBookDriver: Sendable {
    private let book: Mutex<RegionBook>
    private let log = Mutex<[String]>([])

    init(_ region: MonitoredRegion) {
        var b = RegionBook(hysteresis: .off)
        _ = b.add(region)
        book = Mutex(b)
    }

    var events: [String] { log.withLock { $0 } }

    func observe(_ fix: LocationManager.Fix) {
        let out = book.withLock { $0.observe(fix.location, placemark: fix.placemark) }
        log.withLock { log in
            for e in out {
                switch e {
                case .stateDetermined(let r, let s, _): log.append("\(r.identifier) \(s)")
                case .entered(let r, _): log.append("\(r.identifier) entered")
                case .exited(let r, _): log.append("\(r.identifier) exited")
                }
            }
        }
    }
}
