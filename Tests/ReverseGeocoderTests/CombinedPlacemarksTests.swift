import GeoModel
import Testing
@testable import ReverseGeocoder

/// The thread's table of combined placemarks (`Query/CombinedPlacemarks.swift`, keys and values in one
/// block) must answer exactly as a dictionary does: every stored key finds its own placemark (the same
/// storage, not a copy), every other key finds nothing, through the table's doublings.
struct CombinedPlacemarksTests: Sendable {
    @Test(arguments: [0, 1, 2, 3])
    func findIsADictionary(overlays: Int) {
        let table = CombinedPlacemarks(overlays: overlays)
        var rng = SplitMix64(seed: 16_700 + UInt64(overlays))
        var stored: [[Int32]: Placemark] = [:]
        func randomKey() -> [Int32] {
            // Small slots, -1 among them, so keys collide in their hash buckets and differ in one slot only.
            (0...overlays).map { _ in Int32(Int(rng.unitInterval() * 300)) - 1 }
        }
        func set(_ k: [Int32]) { for (i, v) in k.enumerated() { table.key[i] = v } }
        for i in 0..<3000 {
            let k = randomKey()
            set(k)
            if let found = table.find() {
                #expect(found.storageIdentity == stored[k]?.storageIdentity, "key \(k)")
                continue
            }
            #expect(stored[k] == nil, "key \(k) stored but not found")
            let p = Placemark(units: [.country: Placemark.Unit(name: "unit \(i)")], dataset: "d\(i)")
            table.insert(p)
            stored[k] = p
        }
        #expect(table.count == stored.count)
        // Every stored key, and as many keys never stored.
        for (k, p) in stored {
            set(k)
            #expect(table.find()?.storageIdentity == p.storageIdentity)
            #expect(table.find()?.dataset == p.dataset)
        }
        var absent = 0
        while absent < 2000 {
            let k = randomKey().map { $0 + 1000 }
            set(k)
            #expect(table.find() == nil)
            absent += 1
        }
    }
}
