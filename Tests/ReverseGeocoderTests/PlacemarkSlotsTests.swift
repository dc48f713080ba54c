@testable import ReverseGeocoder
import Testing

/// The index cache's placemark section is laid out by the field table: every stored field, and every
/// level's names per language, come back from a written section exactly.
@Suite struct PlacemarkSlotsTests {
    func full(_ i: Int) -> Placemark {
        var units: [AdminLevel: Placemark.Unit] = [:]
        for level in AdminLevel.allCases {
            let provenance: Placemark.Provenance = switch (i + level.rank) % 4 {
            case 0: .inside
            case 1: .provinceFallback
            case 2: .nearestPlace(metres: Double(i) * 10.25)
            default: .nearestUnit(metres: 0.5 + Double(level.rank))
            }
            units[level] = Placemark.Unit(name: i % 3 == 0 && level == .district ? nil : "\(level.rawValue) \(i) 名",
                                          code: "\(i)-\(level.rank)", language: level.rank % 2 == 0 ? "zh" : nil,
                                          names: level == .city ? [:] : ["en": "E\(i)", "zh-Hant": "中\(i)"],
                                          provenance: provenance)
        }
        return Placemark(units: units, timeZone: i % 2 == 0 ? "Asia/Shanghai" : nil, ocean: "Ocean \(i)",
                         inlandWater: i % 2 == 0 ? nil : "Lake \(i)", dataset: "slots")
    }

    @Test func everyFieldSurvivesTheCache() throws {
        let placemarks = (0..<7).map(full) + [Placemark(dataset: "slots")]
        var slots: [UInt32] = [], text: [UInt8] = []
        for p in placemarks { PlacemarkSlots.append(p, slots: &slots, text: &text) }
        #expect(slots.count == placemarks.count * PlacemarkSlots.slotsPerPlacemark)
        // Every stored field of the table has its slots (a field added to the table grows the layout).
        #expect(PlacemarkSlots.slotsPerPlacemark
                == 2 * PlacemarkField.allCases.filter { !$0.isDerived && $0 != .dataset }.count + 2 * AdminLevel.allCases.count)
        try slots.withUnsafeBufferPointer { s in
            try text.withUnsafeBytes { bytes in
                for (u, p) in placemarks.enumerated() {
                    let back = try PlacemarkSlots.read(u, slots: s, bytes: bytes, dataset: "slots")
                    #expect(back == p, "unit \(u)")
                    for field in PlacemarkField.allCases { #expect(field.value(of: back) == field.value(of: p), "\(u) \(field.key)") }
                }
            }
        }
    }

    @Test func damagedSlotsAreRejected() {
        var slots: [UInt32] = [], text: [UInt8] = []
        PlacemarkSlots.append(full(1), slots: &slots, text: &text)
        slots[0] = UInt32(text.count + 10)   // the name's offset past the text
        slots.withUnsafeBufferPointer { s in
            text.withUnsafeBytes { bytes in
                #expect(throws: PlacemarkSlots.Damage.self) { try PlacemarkSlots.read(0, slots: s, bytes: bytes, dataset: "d") }
                #expect(throws: PlacemarkSlots.Damage.self) { try PlacemarkSlots.read(1, slots: s, bytes: bytes, dataset: "d") }
            }
        }
    }

    /// A names text is written once per distinct bytes, not once per String: Swift's String equality is
    /// canonical equivalence, so "Évreux" precomposed and "E" + combining acute were one text, and the
    /// second unit read back the first's bytes. Each unit now reads back the bytes it was given, and a
    /// text repeated byte for byte is still written once.
    @Test func namesTextsAreWrittenOncePerDistinctBytes() throws {
        let composed = "\u{C9}vreux", decomposed = "E\u{301}vreux"
        #expect(composed == decomposed)  // the premise: equal as Strings
        func unit(_ name: String) -> Placemark {
            Placemark(units: [.city: Placemark.Unit(name: "x", code: "c", language: nil, names: ["fr": name, "en": "Evreux"],
                                                    provenance: .inside)], dataset: "slots")
        }
        let placemarks = [unit(composed), unit(decomposed), unit(composed), unit(composed)]
        var slots: [UInt32] = [], text: [UInt8] = [], pool = PlacemarkSlots.NamesPool()
        var sizes: [Int] = []
        for p in placemarks {
            PlacemarkSlots.append(p, slots: &slots, text: &text, pool: &pool)
            sizes.append(text.count)
        }
        #expect(pool.written.count == 2)
        // The second writes its own names text, the third finds the first's, the fourth is the third's again:
        // those two write only their other fields.
        let grown = zip(sizes.dropFirst(), sizes).map { $0 - $1 }
        #expect(grown[0] == grown[1] + decomposed.utf8.count + "fr\u{1F}\u{1E}en\u{1F}Evreux".utf8.count && grown[1] == grown[2], "bytes written per unit: \(grown)")
        try slots.withUnsafeBufferPointer { s in
            try text.withUnsafeBytes { bytes in
                for (u, p) in placemarks.enumerated() {
                    let back = try PlacemarkSlots.read(u, slots: s, bytes: bytes, dataset: "slots")
                    #expect(Array(back[.city].names["fr"]?.utf8 ?? "".utf8) == Array(p[.city].names["fr"]!.utf8), "unit \(u)")
                }
            }
        }
    }

    /// What may reuse the last unit's names text: one dictionary twice, and two dictionaries with the same
    /// tags and names byte for byte, however each was built; never two that differ in one name's bytes
    /// (a combining accent for a precomposed one), a tag, or an entry.
    @Test func namesDictionariesAreTheSameOnlyByteForByte() {
        var names: [String: String] = [:]
        for k in 0..<150 { names["l\(k)"] = "name \(k)" }
        #expect(PlacemarkSlots.sameBytes(names, names))
        var rebuilt: [String: String] = [:]  // equal, its own storage, filled in the other order
        for k in (0..<150).reversed() { rebuilt["l\(k)"] = "name \(k)" }
        #expect(PlacemarkSlots.sameBytes(names, rebuilt) && PlacemarkSlots.sameBytes(rebuilt, names))
        var accent = names
        accent["l7"] = "\u{C9}vreux"
        var combining = names
        combining["l7"] = "E\u{301}vreux"
        #expect(accent == combining)  // the premise: equal as Strings
        #expect(!PlacemarkSlots.sameBytes(accent, combining))
        var retagged = names
        retagged["l149"] = nil
        retagged["m149"] = "name 149"
        #expect(!PlacemarkSlots.sameBytes(names, retagged))
        var fewer = names
        fewer["l0"] = nil
        #expect(!PlacemarkSlots.sameBytes(names, fewer) && !PlacemarkSlots.sameBytes(fewer, names))
        #expect(PlacemarkSlots.sameBytes([:], [:]))
    }

    @Test func formatVersionWasBumped() {
        #expect(IndexCache.formatVersion >= 6)
    }
}
