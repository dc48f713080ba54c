import Foundation
import Testing
@testable import ReverseGeocoder

/// Each thread answers with its own copies of the placemarks (see `QueryContext.placemark`), so that
/// threads never write to one reference count. The copies must be indistinguishable from the originals.
struct ThreadPlacemarkTests {
    @Test func unsharedCopiesEqualTheOriginals() throws {
        let g = try BundledDataTests.geocoder.get()
        var checked = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for set in g.loaded {
            for layer in set.layers {
                for p in layer.placemarks {
                    let copy = p.unshared()
                    #expect(copy == p)
                    #expect(copy.hashValue == p.hashValue)
                    // Every field, through Codable: a field the copy forgot would show here.
                    #expect(try encoder.encode(copy) == encoder.encode(p))
                    checked += 1
                }
            }
        }
        #expect(checked > 7_000)
    }

    @Test func threadsAnsweringWithTheirOwnCopiesAgree() async throws {
        let g = try BundledDataTests.geocoder.get()
        let beijing = Coordinate(latitude: 39.9087, longitude: 116.3975)
        let expected = try #require(try g.placemark(for: beijing, datum: .gcj02))
        #expect(expected.subLocality == "东城区")
        let answers = LockedList()
        try await offPool {
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<1_000 { _ = try! g.placemark(for: beijing, datum: .gcj02) }
                answers.append(try! g.placemark(for: beijing, datum: .gcj02))
            }
        }
        #expect(answers.values.count == 4)
        #expect(answers.values.allSatisfy { $0 == expected })
    }
}

private final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Placemark?] = []
    func append(_ p: Placemark?) { lock.lock(); list.append(p); lock.unlock() }
    var values: [Placemark?] { lock.lock(); defer { lock.unlock() }; return list }
}
