import Foundation
@testable import GeocodeCLI
import GeoModel
import ReverseGeocoder
import Testing
import TestSupport

/// Every output the CLI writes carries every field of the one table (GeoModel's PlacemarkField), under
/// the names the table gives it: adding a field and forgetting an output fails here.
@Suite struct FieldTableTests {
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { dir.deleteLastPathComponent() }
        return dir
    }()
    static let keys = PlacemarkField.allCases.map(\.key)
    static let columns = PlacemarkField.allCases.map(\.column)
    /// The table's columns, then the CLI's derived ones (declared once, in DerivedColumn).
    static let allColumns = columns + DerivedColumn.allCases.map(\.rawValue)

    func object(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// `geocode --json`'s placemark has the keys of the library's JSONEncoder output, in table order,
    /// null time zone included, and decodes to the very placemark the lookup answers.
    @Test func reverseJSONIsTheLibrarysJSON() async throws {
        let r = try await GeocodeBinary.run(["--json", "45.5", "12.25"])
        #expect(r.status == 0)
        let placemarkText = try #require(r.out.range(of: "\"placemark\":").map { r.out[$0.upperBound...].dropLast(2) })
        let cli = try object(placemarkText)
        let expected = try #require(try GridTestLookup().placemark(for: Coordinate(latitude: 45.5, longitude: 12.25), datum: .wgs84))
        let library = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(expected)) as? [String: Any])
        #expect(Set(cli.keys) == Set(library.keys))
        #expect(Set(cli.keys) == Set(Self.keys))
        #expect(cli["timeZone"] is NSNull)
        // In table order, as written.
        let order = Self.keys.map { key in placemarkText.range(of: "\"\(key)\":")!.lowerBound }
        #expect(order == order.sorted())
        #expect(try JSONDecoder().decode(Placemark.self, from: Data(placemarkText.utf8)) == expected)
    }

    @Test func batchAllHasEveryColumnInEveryFormat() async throws {
        let csv = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "all"], piped: "lat,lon\n45.5,12.25\n10,-30\n")
        #expect(csv.status == 0)
        let header = csv.out.split(separator: "\n")[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(header == ["lat", "lon"] + Self.allColumns + ["geocode_error"])
        let rows = csv.out.split(separator: "\n")
        #expect(rows.count == 3)
        let ndjson = try await GeocodeBinary.run(["batch", "-", "-q", "-F", "ndjson", "--fields", "all"], piped: "lat,lon\n45.5,12.25\n10,-30\n")
        for line in ndjson.out.split(separator: "\n") {
            let o = try object(line)
            // geocode_error only on bad rows; every field on every row.
            #expect(Set(o.keys).subtracting(["geocode_error"]) == Set(["lat", "lon"] + Self.allColumns))
        }
        let geojson = try await GeocodeBinary.run(["batch", "-", "-q", "-f", "csv", "-F", "geojson", "--fields", "all"], piped: "lat,lon\n45.5,12.25\n")
        let features = try #require((try JSONSerialization.jsonObject(with: geojson.stdout) as? [String: Any])?["features"] as? [[String: Any]])
        let properties = try #require(features.first?["properties"] as? [String: Any])
        #expect(Set(Self.allColumns).isSubset(of: Set(properties.keys)))
    }

    /// The old names keep working, and keep their header; new names and library keys give the table's
    /// column; one column per field.
    @Test func oldNamesAreAliases() async throws {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "province,administrativeArea,city_code,timeZone,sub-locality,city_is_province"],
                                      piped: "lat,lon\n45.5,12.25\n")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "lat,lon,province,city_code,time_zone,sub_locality,city_is_province,geocode_error\n"
                + "45.5,12.25,Band 13,TL-13-2,,Quarter 5,false,\n")
        for (name, field) in PlacemarkColumn.legacyAliases {
            #expect(PlacemarkColumn(name: name) == PlacemarkColumn(field, name: name))
        }
        #expect(PlacemarkColumn.defaults.map(\.name) == ["country", "country_code", "province", "city", "district"])
        let bad = try await GeocodeBinary.run(["batch", "-", "--fields", "planet"], piped: "1,2\n")
        #expect(bad.status == 2)
        #expect(bad.err.contains("time_zone") && bad.err.contains("old names: country_code, province"))
    }

    /// `fields` takes no argument: one after it was ignored (exit 0); now it is named, exit 2.
    @Test func fieldsRejectsAnArgument() async throws {
        let r = try await GeocodeBinary.run(["fields", "extra"])
        #expect(r.status == 2, "\(r.out)")
        #expect(r.err.hasPrefix("geocode: unexpected argument \"extra\"\n"), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    /// `fields` took no data option, though the help says `--data` is accepted by every command (exit 2,
    /// "unknown option --data"). Now it loads the data as every command does and lists, per dataset, the
    /// columns its manifest maps and its names' languages. The oracle: the fixture's two manifests
    /// (localities: `city` and `country`, name and code; time zones: `timeZone`).
    @Test func fieldsDescribesTheDataItIsGiven() async throws {
        let fixture = Self.root.appendingPathComponent("Tests/ReverseGeocoderTests/Fixtures/overlay").path
        let plain = try await GeocodeBinary.run(["fields"])
        for arguments in [["fields", "--data", fixture], ["--data", fixture, "fields"]] {
            let r = try await GeocodeBinary.run(arguments, environment: ["GEOCODE_TEST_LOOKUP": ""])
            #expect(r.status == 0, "\(arguments): \(r.err)")
            #expect(r.out == plain.out + """

                data \(fixture): the columns each dataset fills, and the languages it has names in (--lang)
                  fixture-localities (admin): country, iso_country_code, locality, locality_code
                  fixture-timezones (overlay): time_zone

                """, "\(arguments)")
        }
        let json = try await GeocodeBinary.run(["fields", "--json", "--data", fixture], environment: ["GEOCODE_TEST_LOOKUP": ""])
        #expect(json.status == 0, "\(json.err)")
        let data = try #require(try object(Substring(json.out))["data"] as? [String: Any])
        #expect(data["directory"] as? String == fixture)
        let datasets = try #require(data["datasets"] as? [[String: Any]])
        #expect(datasets.map { $0["name"] as? String } == ["fixture-localities", "fixture-timezones"])
        #expect(datasets.map { $0["columns"] as? [String] } == [["country", "iso_country_code", "locality", "locality_code"], ["time_zone"]])
        #expect(datasets.map { $0["languages"] as? [String] } == [[], []])
    }

    /// A data folder that is not there is named, exit 4, as every command that reads data says it,
    /// also where the lookup needs no data (the test grid) and also before the command word.
    @Test(arguments: [["fields", "--data", "/nonexistent/data"], ["--data", "/nonexistent/data", "fields", "--json"]])
    func fieldsNamesAMissingDataFolder(_ arguments: [String]) async throws {
        for engine in [[:], ["GEOCODE_TEST_LOOKUP": ""]] {
            let r = try await GeocodeBinary.run(arguments, environment: engine)
            #expect(r.status == 4, "\(r.out)")
            #expect(r.err == "geocode: data directory /nonexistent/data (--data) does not exist or is not a directory\n")
            #expect(r.out.isEmpty)
        }
    }

    /// Which columns a bundled dataset's manifest maps (read by hand from Data/*/manifest.json): China's
    /// country comes from its `constants`, the localities' admin-2 from a layer's fields.
    @Test func datasetColumnsFollowTheManifest() throws {
        func columns(_ dataset: String) throws -> [String] {
            let manifest = try DatasetManifest.load(from: Self.root.appendingPathComponent("Data/\(dataset)/manifest.json"))
            return DatasetColumns.fields(of: manifest).map(\.column)
        }
        let levels = ["country", "iso_country_code", "administrative_area", "administrative_area_code"]
        #expect(try columns("china") == levels + ["locality", "locality_code", "sub_locality", "sub_locality_code"])
        #expect(try columns("world") == levels)
        #expect(try columns("localities") == levels + ["sub_administrative_area", "sub_administrative_area_code",
                                                       "locality", "locality_code", "sub_locality", "sub_locality_code"])
        #expect(try columns("timezones") == ["time_zone"])
    }

    /// `track --json`'s placemark objects: the table's keys, like `geocode --json`.
    @Test func trackJSONCarriesEveryField() async throws {
        let gpx = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx").path
        let r = try await GeocodeBinary.run(["track", "--gpx", gpx, "--speed", "max", "--json"])
        #expect(r.status == 0, "\(r.err)")
        var placemarks = 0
        for line in r.out.split(separator: "\n") {
            let o = try object(line)
            guard o["event"] as? String == "placemark", let p = o["placemark"] as? [String: Any] else { continue }
            #expect(Set(p.keys) == Set(Self.keys))
            placemarks += 1
        }
        #expect(placemarks > 0)
    }

    /// The Spark integration's schema is the binary's table, byte for byte (regenerate with
    /// `geocode fields --json` between the markers of geocode_spark.py).
    @Test func sparkSchemaIsTheBinarysTable() async throws {
        let r = try await GeocodeBinary.run(["fields", "--json"])
        #expect(r.status == 0)
        let python = try String(contentsOf: Self.root.appendingPathComponent("Integrations/spark/geocode_spark.py"), encoding: .utf8)
        let start = try #require(python.range(of: "_FIELD_TABLE = json.loads(r\"\"\"\n"))
        let end = try #require(python.range(of: "\"\"\")\n# END GENERATED FIELD TABLE"))
        #expect(String(python[start.upperBound..<end.lowerBound]) == r.out)
        let table = try object(Substring(r.out))
        let fields = try #require(table["fields"] as? [[String: String]])
        #expect(fields.map { $0["column"]! } == Self.allColumns)
        #expect(fields.map { $0["key"]! } == Self.keys + DerivedColumn.allCases.map(\.key))
        #expect(fields.filter { $0["derived"] == "cli" }.map { $0["column"]! } == DerivedColumn.allCases.map(\.rawValue))
    }

    /// The README's field mapping names every column and key.
    @Test func readmeMapsEveryField() async throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        for field in PlacemarkField.allCases where field.kind != .number && !field.key.hasSuffix("Language") && !field.key.hasSuffix("Source") {
            #expect(readme.contains("`\(field.column)`"), "README lacks column \(field.column)")
            #expect(readme.contains("`\(field.key)`"), "README lacks key \(field.key)")
        }
        for (name, _) in PlacemarkColumn.legacyAliases { #expect(readme.contains("`\(name)`")) }
        for derived in DerivedColumn.allCases { #expect(readme.contains("`\(derived.rawValue)`"), "README lacks column \(derived.rawValue)") }
    }

    /// A lookup that cannot answer gives a flagged row, in place, not a crash and not a lost row.
    @Test func lookupErrorsAreFlaggedRows() async throws {
        struct Failing: PlacemarkProvider, DatasetDescribing {
            var datasets: [DatasetInfo] { [] }
            var loadTime: Duration { .zero }
            func placemark(for coordinate: Coordinate, datum: Datum) throws(GeocoderError) -> Placemark? {
                if coordinate.latitude == 2 { throw .geos("predicate failed") }
                return try GridTestLookup().placemark(for: coordinate, datum: datum)
            }
        }
        let input = TemporaryDirectory.shared.uniqueURL("failing", extension: "csv")
        try Data("lat,lon\n45.5,12.25\n2,12.25\n95,1\n".utf8).write(to: input)
        let out = TemporaryDirectory.shared.uniqueURL("failing-out", extension: "csv")
        var parsed = try ArgumentParser.parse(["batch", input.path, "-o", out.path, "-q", "--fields", "country"], options: BatchCommand.options)
        parsed.positionals.removeFirst()
        let options = try BatchCommand.parseOptions(parsed)
        var context = CommandContext(environment: [:], lookupFactory: LookupFactory(needsData: false) { _, _, _ in Failing() },
                                     executablePath: nil)
        let errFile = try TemporaryDirectory.shared.newFile("stderr")
        let errFD = open(errFile.path, O_WRONLY | O_APPEND)
        defer { close(errFD) }
        context.stderr = Console(fd: errFD)
        _ = try BatchRunner(options: options, context: context, dataOption: nil).run()
        #expect(try String(contentsOf: out, encoding: .utf8) == """
            lat,lon,country,geocode_error
            45.5,12.25,Testland,
            2,12.25,,GEOS: predicate failed
            95,1,,"latitude 95 is outside -90...90 (column ""lat"")"

            """)
        let err = String(decoding: try Data(contentsOf: errFile), as: UTF8.self)
        #expect(err.contains(":3: bad row: GEOS: predicate failed"), "\(err)")
    }
}
