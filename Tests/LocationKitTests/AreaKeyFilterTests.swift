import Foundation
import GeoModel
import Testing
@testable import LocationKit

/// `AreaKeyFilter.hasName` tells most names apart by a key of their first letter and normalizes only
/// the rest; it must answer exactly as normalizing every name would (`AdministrativeArea.normalized`,
/// then comparing), or a region named by a name the data has would be refused. Checked against every
/// name of the bundled names tables (countries and subdivisions in 153 languages; China's units),
/// with wanted names written in other cases, decomposed (NFD), with white space at the ends, and with
/// letters whose lowercase or decomposition is another letter. `hasName(utf8:)`, which the engine asks
/// with the bytes of its index cache, must answer as `hasName(_:)` does, for the same names as UTF-8 and
/// for bytes that are not valid UTF-8.
@Suite struct AreaKeyFilterTests {
    /// Every name of the bundled names tables (each `tag=name` of each line).
    static let dataNames: [String] = {
        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { root.deleteLastPathComponent() }
        var names: [String] = []
        for table in ["world", "china"] {
            let text = (try? String(contentsOf: root.appendingPathComponent("Data/\(table)/names.tsv"), encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                for column in line.split(separator: "\t").dropFirst(2) {
                    if let eq = column.firstIndex(of: "=") { names.append(String(column[column.index(after: eq)...])) }
                }
            }
        }
        return names
    }()

    /// Names no table has but a dataset's own names or a regions file could: white space at the ends,
    /// decomposed letters, letters that lowercase or decompose to others.
    static let awkward = ["  Berlin", "Berlin\u{3000}", "\u{3000}北京市", "\tZürich\n", "Zu\u{308}rich", "ZU\u{308}RICH", "\u{212A}iel",
                          "Kiel", "İstanbul", "istanbul", "I\u{307}stanbul", "Ελλάδα", "ΕΛΛΆΔΑ", "Ε\u{301}λλάδα", "서울특별시",
                          "\u{1109}\u{1165}\u{110B}\u{116E}\u{11AF}특별시", "\u{301}Accent", "Åland", "\u{212B}land", "A\u{30A}land", "", " ", "ß", "SS",
                          "BERLIN\r\n", "\u{85}Berlin", "Berlin\u{A0}", "\u{1C}Berlin", "Berlin\u{1F}", "\u{212A}IEL", "KIEL\u{212A}", "Pe\u{301}kin"]

    /// Bytes that are not valid UTF-8 (read as `String(decoding:as:)` reads them, with replacement
    /// characters), at the start, inside and at the end of names the sets want.
    static let invalid: [[UInt8]] = [[0xFF], [0xFF] + Array("Berlin".utf8), Array("Ber".utf8) + [0xC3] + Array("lin".utf8),
                                     Array("Berlin".utf8) + [0xE5, 0x8C], [0xE5, 0x8C] + Array("北京市".utf8), [0xC0, 0xAF]]

    @Test(arguments: [
        ["Berlin", "北京市", "Zürich"],
        ["BERLIN ", "pékin", "Zu\u{308}rich", "\u{212A}IEL", "İstanbul", "ελλάδα", "서울특별시", "ÅLAND"],
        ["Peking", "Tianjin", "Nei Mongol", "Île-de-France", "Ciudad de México", "Москва", "東京都", "القاهرة"],
        ["\u{301}accent", "Berlin"],  // a wanted name without a key: every name compared in full
    ])
    func itAnswersAsNormalizingEveryNameWould(_ wanted: [String]) {
        var filter = AreaKeyFilter(wanted.map { AdministrativeArea.name($0) })
        let normalized = Set(wanted.map(AdministrativeArea.normalized))
        let names = Self.dataNames + Self.awkward
        #expect(names.count > 100_000)
        var byBytes = AreaKeyFilter(wanted.map { AdministrativeArea.name($0) })
        func bytesAnswer(_ utf8: [UInt8]) -> Bool { utf8.withUnsafeBytes { byBytes.hasName(utf8: $0) } }
        var found = 0, wrong: [String] = [], wrongBytes: [String] = []
        for name in names {
            let expected = normalized.contains(AdministrativeArea.normalized(name))
            let answer = filter.hasName(name)
            if answer != expected { wrong.append(name) }
            if bytesAnswer(Array(name.utf8)) != expected { wrongBytes.append(name) }
            if expected { found += 1 }
        }
        for bytes in Self.invalid where bytesAnswer(bytes) != normalized.contains(AdministrativeArea.normalized(String(decoding: bytes, as: UTF8.self))) {
            wrongBytes.append("\(bytes)")
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        #expect(wrongBytes.isEmpty, "\(wrongBytes.prefix(10))")
        #expect(byBytes.namesCompared <= filter.namesCompared + Self.invalid.count, "the bytes pass the same key test")
        #expect(found >= wanted.count - 1, "the names tables have (almost) every wanted name")
        let compared = filter.namesCompared
        if wanted.contains("\u{301}accent") {
            #expect(compared == names.count)
        } else {
            // The point: only names sharing a first letter with a wanted one are normalized (7,502 of
            // 117,876 for the first set, about 20,000 for the others).
            #expect(compared * 4 < names.count, "\(compared) of \(names.count) compared in full")
        }
    }

    /// Codes are compared exactly, as a fix's placemark is; a unit is accepted by its code or by any name.
    @Test func aUnitIsAcceptedByItsCodeOrAnyOfItsNames() {
        var filter = AreaKeyFilter([.code("110000", level: .province), .name("Tianjin")])
        let accepted = [Placemark.Unit(name: "北京市", code: "110000"), Placemark.Unit(name: "北京市", code: "110000 "),
                        Placemark.Unit(name: "天津市", code: "120000", names: ["de": "Tientsin", "en": "TIANJIN"]),
                        Placemark.Unit(name: "天津市", code: "120000", names: ["de": "Tientsin"])].map { filter.accepts($0) }
        #expect(accepted == [true, false, true, false])
        #expect(AreaKeyFilter([AdministrativeArea]()).isEmpty)
    }
}
