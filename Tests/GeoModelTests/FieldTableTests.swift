import Foundation
import GeoModel
import Testing

/// A placemark with every field of the table set to a distinct value, so a field that an output or a
/// round trip drops or mixes up shows.
func fullPlacemark() -> Placemark {
    var units: [AdminLevel: Placemark.Unit] = [:]
    let provenances: [Placemark.Provenance] = [.inside, .nearestUnit(metres: 1234.5), .inside, .nearestPlace(metres: 812), .inside]
    for level in AdminLevel.allCases {
        units[level] = Placemark.Unit(name: "\(level.placemarkKey) name", code: "\(level.rawValue)-code",
                                      language: level.rank % 2 == 0 ? "en" : nil,
                                      names: ["zh": "\(level.rank) 中文", "fr": "\(level.rank) français"],
                                      provenance: provenances[level.rank])
    }
    return Placemark(units: units, timeZone: "Asia/Shanghai", ocean: "Pacific Ocean", inlandWater: "Lake, \"Quoted\"",
                     dataset: "full")
}

@Suite struct FieldTableTests {
    @Test func keysAndColumnsAreUniqueAndColumnsDeriveFromKeys() {
        let keys = PlacemarkField.allCases.map(\.key), columns = PlacemarkField.allCases.map(\.column)
        #expect(Set(keys).count == keys.count)
        #expect(Set(columns).count == columns.count)
        for field in PlacemarkField.allCases {
            #expect(field.column == field.key.reduce(into: "") { out, c in out += c.isUppercase ? "_" + c.lowercased() : String(c) })
            #expect(PlacemarkField(key: field.key) == field)
            #expect(PlacemarkField(key: field.column) == field)
        }
        // CLPlacemark's names, and the time zone key the issue names.
        for key in ["name", "country", "isoCountryCode", "administrativeArea", "administrativeAreaCode", "subAdministrativeArea",
                    "subAdministrativeAreaCode", "locality", "localityCode", "subLocality", "subLocalityCode", "timeZone",
                    "ocean", "inlandWater", "dataset", "localityIsProvinceFallback", "localitySource", "localityDistance",
                    "localityLanguage"] {
            #expect(keys.contains(key), "missing \(key)")
        }
        #expect(PlacemarkField.timeZone.column == "time_zone")
    }

    /// Codable's keys are exactly the table's, every one present even when empty (null).
    @Test func codableCarriesEveryFieldEvenWhenEmpty() throws {
        for placemark in [fullPlacemark(), Placemark(dataset: "empty")] {
            let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(placemark)) as? [String: Any])
            #expect(Set(object.keys) == Set(PlacemarkField.allCases.map(\.key)))
        }
        let empty = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Placemark(dataset: "e"))) as? [String: Any])
        #expect(empty["timeZone"] is NSNull)
    }

    /// Every stored field survives encode → decode; the value API agrees with the properties.
    @Test func codableRoundTripsEveryField() throws {
        let p = fullPlacemark().localized(to: [])   // names per language are not encoded: compare without them
        let back = try JSONDecoder().decode(Placemark.self, from: JSONEncoder().encode(p))
        for field in PlacemarkField.allCases {
            #expect(field.value(of: back) == field.value(of: p), "\(field.key)")
        }
        #expect(back.provenance(at: .province) == .nearestUnit(metres: 1234.5))
        #expect(back.provenance(at: .city) == .nearestPlace(metres: 812))
        #expect(PlacemarkField.level(.city, .distance).value(of: back) == .number(812))
        #expect(PlacemarkField.level(.city, .source).value(of: back) == .text("nearest_place"))
    }

    /// Setting each field through the table changes exactly that field's value.
    @Test func setChangesOnlyItsField() throws {
        for field in PlacemarkField.allCases where !field.isDerived {
            var p = fullPlacemark()
            let before = PlacemarkField.allCases.map { $0.value(of: p) }
            let value: PlacemarkField.Value
            switch field.kind {
            case .text: value = field == .level(.city, .source) || field.key.hasSuffix("Source") ? .text("nearest_unit") : .text("changed")
            case .number: value = .number(42)
            case .flag: value = .flag(true)
            }
            if field.key.hasSuffix("Distance") { p[field.levelForTest!].provenance = .nearestUnit(metres: 1) }
            let base = PlacemarkField.allCases.map { $0.value(of: p) }
            try field.set(value, in: &p)
            #expect(field.value(of: p) == value, "\(field.key)")
            for (i, other) in PlacemarkField.allCases.enumerated() where other != field && !other.isDerived {
                // A "nearest" source brings a distance with it (0 until set): the one documented coupling.
                if case .level(let l, .source) = field, other == .level(l, .distance) { continue }
                #expect(other.value(of: p) == base[i], "setting \(field.key) changed \(other.key)")
            }
            _ = before
        }
    }

    /// A file written before Placemark v2 (LocationKit's current-placemark v1) still decodes, the old flag
    /// becoming the locality's provenance.
    @Test func oldJSONDecodes() throws {
        let old = """
            {"administrativeArea":"北京市","administrativeAreaCode":"110000","country":"中国","dataset":"china-admin-2023",
             "isoCountryCode":"CN","locality":"北京市","localityCode":"110000","localityIsProvinceFallback":true,
             "subLocality":"海淀区","subLocalityCode":"110108"}
            """
        let p = try JSONDecoder().decode(Placemark.self, from: Data(old.utf8))
        #expect(p.localityIsProvinceFallback)
        #expect(p.provenance(at: .city) == .provinceFallback)
        #expect(p.provenance(at: .district) == .inside)
        #expect(p.subLocality == "海淀区" && p.timeZone == nil && p.subAdministrativeArea == nil)
        #expect(p.name == "海淀区")
        #expect(p == Placemark(country: "中国", isoCountryCode: "CN", administrativeArea: "北京市", administrativeAreaCode: "110000",
                               locality: "北京市", localityCode: "110000", subLocality: "海淀区", subLocalityCode: "110108",
                               localityIsProvinceFallback: true, dataset: "china-admin-2023"))
    }

    @Test func badValuesAreErrorsNamingTheField() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Placemark.self, from: Data(#"{"dataset":"d","localitySource":"guessed"}"#.utf8))
        }
        var p = Placemark(dataset: "d")
        do {
            try PlacemarkField.level(.city, .source).set(.text("guessed"), in: &p)
            Issue.record("accepted an unknown provenance")
        } catch {
            #expect(error.description.contains("localitySource") && error.description.contains("nearest_place"))
        }
    }

    @Test func provinceFallbackIsDerivedFromProvenance() {
        var p = Placemark(locality: "北京市", dataset: "d")
        #expect(!p.localityIsProvinceFallback)
        p.localityIsProvinceFallback = true
        #expect(p.provenance(at: .city) == .provinceFallback)
        #expect(PlacemarkField.localityIsProvinceFallback.value(of: p) == .flag(true))
        p.localityIsProvinceFallback = false
        #expect(p.provenance(at: .city) == .inside)
        // No unit, no provenance: the source column stays empty for a level the placemark lacks.
        #expect(p.provenance(at: .district) == nil)
        #expect(PlacemarkField.level(.district, .source).value(of: p) == .text(nil))
    }

    @Test func copiesAreIndependent() {
        let a = fullPlacemark()
        var b = a
        b.locality = "elsewhere"
        #expect(a.locality == "locality name" && b.locality == "elsewhere")
        #expect(a != b)
        #expect(a.unshared() == a && a.unshared().hashValue == a.hashValue)
    }
}

extension PlacemarkField {
    var levelForTest: AdminLevel? {
        if case .level(let l, _) = self { return l }
        return nil
    }
}

@Suite struct PlacemarkDescriptionTests {
    @Test func descriptionNamesTheFieldsThatHaveValues() {
        let p = Placemark(country: "中国", isoCountryCode: "CN", locality: "北京市", localityIsProvinceFallback: true, dataset: "d")
        #expect(p.description == "Placemark(country: 中国, isoCountryCode: CN, locality: 北京市, localitySource: province_fallback, dataset: d)")
    }
}
