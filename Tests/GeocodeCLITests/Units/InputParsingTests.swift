import Testing
@testable import GeocodeCLI

/// The pure parsers behind the new inputs, against values worked out by hand (and, for DMS, the
/// published decimal values of the examples: 48°51'24"N 2°21'08"E is 48.856667, 2.352222).
@Suite struct InputParsingTests {
    @Test(arguments: [
        ("48.8566,2.3522", 48.8566, 2.3522), ("48.8566, 2.3522", 48.8566, 2.3522), ("48.8566 2.3522", 48.8566, 2.3522),
        ("48.8566;2.3522", 48.8566, 2.3522), ("  -33.86\t151.2 ", -33.86, 151.2),
        ("POINT(2.3522 48.8566)", 48.8566, 2.3522), ("point (2.3522 48.8566)", 48.8566, 2.3522),
        ("POINT Z (2.3522 48.8566 35)", 48.8566, 2.3522), ("SRID=4326;POINT(2.3522 48.8566)", 48.8566, 2.3522),
        // The full-width comma of a Chinese input method, and the typographic minus of a document.
        ("39.9087，116.3975", 39.9087, 116.3975), ("39.9087， 116.3975", 39.9087, 116.3975),
        ("−33.86, 151.2", -33.86, 151.2), ("POINT(151.2 −33.86)", -33.86, 151.2),
        // The ideographic space (U+3000) the same input method types where a space goes.
        ("39.9087\u{3000}116.3975", 39.9087, 116.3975), ("39.9087，\u{3000}116.3975", 39.9087, 116.3975),
        ("\u{3000}39.9087 \u{3000}116.3975\u{3000}", 39.9087, 116.3975), ("POINT(116.3975\u{3000}39.9087)", 39.9087, 116.3975),
        ("POINT\u{3000}(116.3975 39.9087)", 39.9087, 116.3975),
    ])
    func pairs(_ text: String, _ lat: Double, _ lon: Double) {
        #expect(CoordinatePair.parse(text, lonFirst: false, decimalComma: false) == CoordinatePair(latitude: lat, longitude: lon))
    }

    @Test func pairOptions() {
        #expect(CoordinatePair.parse("2.35,48.85", lonFirst: true, decimalComma: false) == CoordinatePair(latitude: 48.85, longitude: 2.35))
        // WKT is x y whatever --lon-first says.
        #expect(CoordinatePair.parse("POINT(2.35 48.85)", lonFirst: true, decimalComma: false) == CoordinatePair(latitude: 48.85, longitude: 2.35))
        #expect(CoordinatePair.parse("48,85 2,35", lonFirst: false, decimalComma: true) == CoordinatePair(latitude: 48.85, longitude: 2.35))
        #expect(CoordinatePair.parse("48,85;2,35", lonFirst: false, decimalComma: true) == CoordinatePair(latitude: 48.85, longitude: 2.35))
        for bad in ["", "48.85", "48,85,2,35", "1 2 3", "POINT(1)", "POINT(a b)", "LINESTRING(1 2, 3 4)", "48.85,", "nan,1",
                    // U+3000 separates; it joins nothing: no number holds it.
                    "48.85\u{3000}2.35\u{3000}1", "48.\u{3000}85,2.35", "\u{3000}"] {
            #expect(CoordinatePair.parse(bad, lonFirst: false, decimalComma: false) == nil, "\(bad)")
        }
        #expect(CoordinatePair.parse("48,85 2,35", lonFirst: false, decimalComma: false) == nil)
        // `，` is never a decimal mark, so it separates decimal-comma numbers as `;` does; one of them only.
        #expect(CoordinatePair.parse("48,85，2,35", lonFirst: false, decimalComma: true) == CoordinatePair(latitude: 48.85, longitude: 2.35))
        for bad in ["48.85，2.35，1", "48.85，", "48.85;2.35，1", "48.85，2.35;1"] {
            #expect(CoordinatePair.parse(bad, lonFirst: false, decimalComma: false) == nil, "\(bad)")
        }
    }

    /// Each number's text is kept as written, for messages: `1e400` is out of range, and "inf" is
    /// nothing the user wrote.
    @Test func pairKeepsTheNumbersAsWritten() throws {
        let pair = try #require(CoordinatePair.parse(" 1e400 , −2.50 ", lonFirst: false, decimalComma: false))
        #expect(pair.latitude == .infinity && pair.longitude == -2.5)
        #expect(pair.latitudeText == "1e400" && pair.longitudeText == "−2.50")
        let wkt = try #require(CoordinatePair.parse("POINT(1e400 45.50)", lonFirst: false, decimalComma: false))
        #expect(wkt.latitudeText == "45.50" && wkt.longitudeText == "1e400")
        let swapped = try #require(CoordinatePair.parse("12.250;45.5", lonFirst: true, decimalComma: false))
        #expect(swapped.latitudeText == "45.5" && swapped.longitudeText == "12.250")
    }

    /// Degrees, minutes, seconds per axis (sign on the degrees), as written in each text.
    static let dmsCases: [(String, [Double], [Double])] = [
        ("48°51'24\"N 2°21'08\"E", [48, 51, 24], [2, 21, 8]),
        ("48 51 24 N 2 21 08 E", [48, 51, 24], [2, 21, 8]),
        ("N 48°51.4' E 2°21.1'", [48, 51.4, 0], [2, 21.1, 0]),
        ("33°52′S 151°12′E", [-33, 52, 0], [151, 12, 0]),
        ("2°21'08\"E 48°51'24\"N", [48, 51, 24], [2, 21, 8]),
        ("48.8566°N, 2.3522°W", [48.8566, 0, 0], [-2.3522, 0, 0]),
        ("-33°52' 151°12'", [-33, 52, 0], [151, 12, 0]),
        ("40°26′46″N 79°58′56″W", [40, 26, 46], [-79, 58, 56]),
        ("33°52′S，151°12′E", [-33, 52, 0], [151, 12, 0]),
        ("−33°52' 151°12'", [-33, 52, 0], [151, 12, 0]),
        ("48°51'24\"N\u{3000}2°21'08\"E", [48, 51, 24], [2, 21, 8]),
        ("48\u{3000}51\u{3000}24\u{3000}N\u{3000}2\u{3000}21\u{3000}08\u{3000}E", [48, 51, 24], [2, 21, 8]),
    ]

    static func degrees(_ parts: [Double]) -> Double {
        let magnitude = abs(parts[0]) + parts[1] / 60 + parts[2] / 3600
        return parts[0] < 0 ? -magnitude : magnitude
    }

    @Test(arguments: dmsCases)
    func dms(_ text: String, _ lat: [Double], _ lon: [Double]) throws {
        let pair = try DMSCoordinate.parse(text).get()
        #expect(pair == CoordinatePair(latitude: Self.degrees(lat), longitude: Self.degrees(lon)), "\(text)")
    }

    /// Each angle's text as typed, for messages: `95°30'N` is out of range, and "95.5" is nothing the
    /// user wrote (it was quoted so).
    @Test(arguments: [
        ("95°30'N 12°15'E", "95°30'N", "12°15'E"), ("N 95°30.5' E 12°", "N 95°30.5'", "E 12°"),
        ("12°15'E 95°30'00\"N", "95°30'00\"N", "12°15'E"), ("95 30 00 N, 200 15 00 W", "95 30 00 N", "200 15 00 W"),
        ("−95°30' 12°15'", "−95°30'", "12°15'"), ("33°52′S，151°12′E", "33°52′S", "151°12′E"),
    ])
    func dmsKeepsTheAnglesAsTyped(_ text: String, _ lat: String, _ lon: String) throws {
        let pair = try DMSCoordinate.parse(text).get()
        #expect(pair.latitudeText == lat && pair.longitudeText == lon, "\(text): \(pair.latitudeText) / \(pair.longitudeText)")
    }

    @Test(arguments: [
        ("48 51 24 2 21 08", "ambiguous"), ("48°51'24\"N 2°21'08\"S", "two latitudes"), ("-48°51'N 2°E", "sign and a hemisphere"),
        ("48°61'N 2°E", "minutes 61.0 are not below 60"), ("48.5°30'N 2°E", "has a fraction"), ("48°N", "expected two angles"),
        ("48°N 2°E 3°E", "expected two angles"), ("48°51'24\"X 2°E", "unexpected \"X\""),
    ])
    func dmsRefusals(_ text: String, _ reason: String) {
        guard case .failure(let error) = DMSCoordinate.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error.message.contains(reason), "\(text): \(error.message)")
    }

    @Test func columnNames() {
        #expect(ColumnMatcher.find(.latitude, in: ["id", "pickup_latitude", "pickup_longitude"]) == .column(1))
        #expect(ColumnMatcher.find(.longitude, in: ["id", "pickup_latitude", "pickup_longitude"]) == .column(2))
        #expect(ColumnMatcher.find(.latitude, in: ["Lat (deg)", "Lon (deg)"]) == .column(0))
        #expect(ColumnMatcher.find(.latitude, in: ["GPS Latitude", "GPS Longitude"]) == .column(0))
        #expect(ColumnMatcher.find(.latitude, in: ["startLat", "startLng"]) == .column(0))
        #expect(ColumnMatcher.find(.longitude, in: ["startLat", "startLng"]) == .column(1))
        // Plain names win over prefixed ones; `flat` and `plateau` are no latitude.
        #expect(ColumnMatcher.find(.latitude, in: ["start_lat", "lat"]) == .column(1))
        #expect(ColumnMatcher.find(.latitude, in: ["flat", "plateau", "along"]) == .none)
        #expect(ColumnMatcher.find(.latitude, in: ["lat_error", "lat_rad", "lat_min", "lat_hemisphere"]) == .none)
        #expect(ColumnMatcher.find(.latitude, in: ["pickup_lat", "dropoff_lat"]) == .ambiguous([0, 1]))
    }

    @Test func delimiters() {
        func sniff(_ text: String) -> UInt8? {
            let bytes = Array(text.utf8)
            return DelimiterSniffer.sniff(InputSample(bytes: bytes, records: InputSample.split(bytes, complete: true)))
        }
        #expect(sniff("lat,lon\n1,2\n") == UInt8(ascii: ","))
        #expect(sniff("name;lat;lon\nParis;48,85;2,35\n") == UInt8(ascii: ";"))
        #expect(sniff("name\tlat\tlon\nParis, France\t48\t2\n") == 0x09)
        #expect(sniff("a|b\n1|2\n") == UInt8(ascii: "|"))
        #expect(sniff("\"a;b\",c\n\"1;2\",3\n") == UInt8(ascii: ","))
        #expect(sniff("lat\n1\n") == nil)
    }

    @Test func decimalComma() {
        #expect(DecimalNumber.parse("48,8566", decimalComma: true) == 48.8566)
        #expect(DecimalNumber.parse("-0,5", decimalComma: true) == -0.5)
        #expect(DecimalNumber.parse("48", decimalComma: true) == 48)
        #expect(DecimalNumber.parse("48.5", decimalComma: true) == 48.5)
        #expect(DecimalNumber.parse(" 12,25 ", decimalComma: true) == 12.25)
        for bad in ["1,2,3", "1.234,5", "1,2.3", ",", "abc"] { #expect(DecimalNumber.parse(bad, decimalComma: true) == nil, "\(bad)") }
    }

    @Test func utf8Check() {
        #expect(InputStack.firstInvalidUTF8(Array("héllo €𝄞".utf8), complete: true) == nil)
        #expect(InputStack.firstInvalidUTF8([0x61, 0xE9, 0x62], complete: true) == 1)
        #expect(InputStack.firstInvalidUTF8([0x61, 0xC0, 0x80], complete: true) == 1)        // overlong
        #expect(InputStack.firstInvalidUTF8([0xED, 0xA0, 0x80], complete: true) == 0)        // a surrogate
        #expect(InputStack.firstInvalidUTF8([0x61, 0xE2, 0x82], complete: false) == nil)     // cut by the sample's end
        #expect(InputStack.firstInvalidUTF8([0x61, 0xE2, 0x82], complete: true) == 1)
    }
}
