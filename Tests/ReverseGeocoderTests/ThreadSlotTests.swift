import Foundation
import Synchronization
import Testing
@testable import ReverseGeocoder

/// A thread remembers the query context of the geocoder it queried last in one C thread-local slot
/// (``ContextRegistry``, CHotPath). A context holds the thread's copies of one geocoder's placemarks by
/// slot number, so a context used for the wrong geocoder answers with the other's units: these geocoders
/// have the same box under different names, and each answer must carry its own geocoder's name.
struct ThreadSlotTests {
    /// A geocoder whose one unit, the box (0, 0)–(2, 2), is called `name`.
    private static func geocoder(_ name: String) throws -> ReverseGeocoder {
        let shp = TestShapefile.write(TestShapefile.directory("slot\(name)").appendingPathComponent("u"), fields: ["NAME", "CODE"],
                                      records: [.init(rings: [TestShapefile.box(0, 0, 2, 2)], ["NAME": name, "CODE": "1"])])
        return try ReverseGeocoder(manifests: [(TestShapefile.manifest(name, file: shp), nil)])
    }

    @Test func geocodersQueriedInTurnOnOneThreadEachAnswerWithTheirOwnUnits() throws {
        let names = ["north", "south", "east"]
        let geocoders = try names.map(Self.geocoder)
        let point = Coordinate(latitude: 1, longitude: 1)
        // In turn, so that every query finds the slot holding another geocoder's context.
        for round in 0..<50 {
            for (g, name) in zip(geocoders, names) {
                #expect(try g.placemark(for: point)?.administrativeArea == name, "round \(round)")
            }
        }
        // And each geocoder's context is still the one it made for this thread (not one per query).
        for g in geocoders {
            let first = try g.contexts.currentUnmanaged().toOpaque()
            _ = try geocoders.last!.placemark(for: point)
            #expect(try g.contexts.currentUnmanaged().toOpaque() == first)
        }
    }

    @Test func aGeocoderMadeAfterAnotherIsFreedAnswersWithItsOwnUnits() throws {
        let point = Coordinate(latitude: 1, longitude: 1)
        // The freed geocoder's registry may leave its memory, and its context's, to the next one: the slot
        // still names the freed registry's number, which no later registry gets.
        for i in 0..<20 {
            let name = "unit\(i)"
            let g = try Self.geocoder(name)
            #expect(try g.placemark(for: point)?.administrativeArea == name)
        }
    }

    @Test func threadsQueryingTwoGeocodersKeepThemApart() async throws {
        let a = try Self.geocoder("alpha"), b = try Self.geocoder("beta")
        let point = Coordinate(latitude: 1, longitude: 1)
        let wrong = Atomic<Int>(0)
        try await offPool {
            DispatchQueue.concurrentPerform(iterations: 4) { t in
                for k in 0..<2_000 {
                    let (g, name) = (k + t) % 3 == 0 ? (a, "alpha") : (b, "beta")
                    if (try? g.placemark(for: point))?.administrativeArea != name { wrong.add(1, ordering: .relaxed) }
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
