import Foundation
import Testing

/// `geocode track` and `geocode info` through the real binary on the bundled Data/ (not the test grid).
@Suite(.serialized)
struct TrackAndInfoTests {
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { dir.deleteLastPathComponent() }
        return dir
    }()

    /// The real engine on Data/, without the cell quadtree (its build dominates a debug binary's start).
    static let realData = ["GEOCODE_TEST_LOOKUP": "", "GEOCODE_DATA": root.appendingPathComponent("Data").path,
                           "GEOCODE_CELL_SIZE": "0"]

    /// Runs the binary on the real data (GeocodeBinary waits for it without holding the cooperative pool).
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> GeocodeBinary.Result {
        try await GeocodeBinary.run(arguments, environment: realData.merging(extra) { $1 })
    }

    @Test func trackGPXPrintsTheCityChangesOfTheDrive() async throws {
        let gpx = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx").path
        let r = try await Self.run(["track", "--gpx", gpx, "--speed", "max"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        // The oracle's changes (make_drive.py, shapely): Beijing → Langfang → Tianjin.
        #expect(lines.filter { $0.contains("city changed") }.map { $0.split(separator: " ", maxSplits: 1)[1] }
                == ["city changed 北京市 → 廊坊市", "city changed 廊坊市 → 天津市"])
        #expect(lines.filter { $0.contains(" location ") }.count == 445)
        #expect(lines.filter { $0.contains(" placemark ") }.count == 445)
        #expect(lines.first == "2023-11-14T22:13:20Z location 39.908700,116.397500 ±5m")
        #expect(lines.dropFirst().first == "2023-11-14T22:13:20Z placemark 中国 / 北京市 / 北京市 / 东城区")
    }

    @Test func trackWithRegionsAndAReportFile() async throws {
        let fixtures = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geocode-track-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = dir.appendingPathComponent("reports.ndjson")
        let r = try await Self.run(["track", "--gpx", fixtures.appendingPathComponent("beijing-tianjin.gpx").path, "--speed", "max",
                                    "--region", fixtures.appendingPathComponent("regions-example.json").path,
                                    "--report", reports.path, "--report-queue", dir.appendingPathComponent("queue").path])
        #expect(r.status == 0, "\(r.err)")
        let regionLines = r.out.split(separator: "\n").filter { $0.contains(" region ") }.map { $0.split(separator: " ", maxSplits: 1)[1] }
        // Leaving Beijing for Langfang, then Langfang for Tianjin, as the cities (shapely's) say.
        #expect(regionLines.contains("region exited beijing") && regionLines.contains("region entered langfang"))
        #expect(regionLines.contains("region exited langfang") && regionLines.contains("region entered tianjin"))
        #expect(regionLines.firstIndex(of: "region entered langfang")! < regionLines.firstIndex(of: "region entered tianjin")!)
        // Every accepted fix (one per 250 m, every 10 s: all pass the 100 m / 10 s rule) reported once, in order.
        let lines = try String(contentsOf: reports, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 445)
        let seqs = try lines.map { try #require((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["seq"] as? Int) }
        #expect(seqs == Array(seqs.sorted()) && Set(seqs).count == 445)
    }

    /// Region lines are printed in causal order: right after the lines of the fix that caused them (its
    /// location and placemark, and a city change if any), before the next fix's, so the same input gives
    /// the same bytes on every run, in text and in `--json`. They used to be printed from the region
    /// monitor's own queue, wherever that came: the same lines in a different order from run to run,
    /// often many fixes before the fix that caused them.
    @Test func regionLinesFollowTheirFixAndEveryRunIsTheSame() async throws {
        let fixtures = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures")
        let arguments = ["track", "--gpx", fixtures.appendingPathComponent("beijing-tianjin.gpx").path, "--speed", "max",
                         "--region", fixtures.appendingPathComponent("regions-example.json").path]
        for json in [false, true] {
            var outputs: [Data] = []
            for _ in 0..<(json ? 2 : 3) {
                let r = try await Self.run(arguments + (json ? ["--json"] : []))
                #expect(r.status == 0, "\(r.err)")
                outputs.append(r.stdout)
            }
            #expect(outputs.dropFirst().allSatisfy { $0 == outputs[0] }, "runs differ (json: \(json))")
            // (time, kind) of each line; a region line's time is that of the fix that caused it.
            let lines: [(time: String, kind: String)] = try String(decoding: outputs[0], as: UTF8.self).split(separator: "\n").map { line in
                if json {
                    let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    let event = o["event"] as? String ?? "?"
                    return (o["time"] as? String ?? "", event.hasPrefix("region_") ? "region" : event)
                }
                let parts = line.split(separator: " ", maxSplits: 2)
                return (String(parts[0]), parts[1] == "city" ? "city_changed" : String(parts[1]))
            }
            var fix: String?, placed = false, regionLines = 0
            for (i, line) in lines.enumerated() {
                switch line.kind {
                case "location": (fix, placed) = (line.time, false)
                case "placemark": placed = true
                case "region":
                    regionLines += 1
                    #expect(line.time == fix && placed, "line \(i + 1) (json: \(json)): region event of \(line.time) after the fix of \(fix ?? "none")")
                default: break
                }
            }
            // Eight initial states on the first fix, then -tiananmen, -dongcheng, -beijing +langfang,
            // -langfang +tianjin, +tianjin-depot.
            #expect(regionLines == 15, "json: \(json)")
        }
    }

    /// A long replay at --speed max through the real binary loses and reorders nothing: the manager
    /// waits for the printer (backpressure) instead of dropping or queueing without bound. 20,000
    /// distinct fixes, 1 s apart, a straight line in Beijing: the location events are exactly those
    /// fixes, in file order, each followed by its placemark.
    @Test func aLongReplayPrintsEveryFixInOrder() async throws {
        let n = 20_000
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geocode-track-long-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpx = dir.appendingPathComponent("long.gpx")
        let start = 1_714_521_600  // 2024-05-01T00:00:00Z
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"TrackAndInfoTests\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        var expected: [(lat: Double, lon: Double, time: String)] = []
        let format = ISO8601DateFormatter()
        for i in 0..<n {
            let lat = 39.85 + Double(i) * 1e-6, lon = 116.30 + Double(i) * 1e-6
            let time = format.string(from: Date(timeIntervalSince1970: TimeInterval(start + i)))
            text += "<trkpt lat=\"\(String(format: "%.7f", lat))\" lon=\"\(String(format: "%.7f", lon))\"><time>\(time)</time></trkpt>\n"
            expected.append((lat, lon, time))
        }
        text += "</trkseg></trk></gpx>\n"
        try text.write(to: gpx, atomically: true, encoding: .utf8)

        let r = try await Self.run(["track", "--gpx", gpx.path, "--speed", "max", "--json"])
        #expect(r.status == 0, "\(r.err)")
        let objects = try r.out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let kinds = objects.map { $0["event"] as? String ?? "?" }
        #expect(kinds.filter { $0 == "location" }.count == n)
        #expect(kinds.filter { $0 == "placemark" }.count == n)
        // Each location is followed by its placemark (a city change may come after that).
        for (i, kind) in kinds.enumerated() where kind == "location" {
            #expect(i + 1 < kinds.count && kinds[i + 1] == "placemark", "line \(i + 1)")
        }
        let locations = objects.filter { $0["event"] as? String == "location" }
        var mismatches = 0
        for (got, want) in zip(locations, expected) {
            let lat = got["latitude"] as? Double ?? .nan, lon = got["longitude"] as? Double ?? .nan
            if abs(lat - want.lat) > 1e-9 || abs(lon - want.lon) > 1e-9 || got["time"] as? String != want.time { mismatches += 1 }
        }
        #expect(mismatches == 0, "location events that are not the file's fixes in order")
    }

    /// `--json` writes `/` as it is on every line, as `info --json` does: region events were written by
    /// `JSONSerialization` without `.withoutEscapingSlashes` (`"region":"cn\/beijing"`), unlike the
    /// location and placemark lines (`"timeZone":"Asia/Shanghai"`).
    @Test func trackJSONWritesSlashesAsTheyAre() async throws {
        let gpx = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx").path
        let regions = TemporaryDirectory.shared.uniqueURL("regions", extension: "json")
        try #"{"regions": [{"id": "cn/beijing", "area": "city 北京市"}]}"#.write(to: regions, atomically: true, encoding: .utf8)
        let r = try await Self.run(["track", "--gpx", gpx, "--speed", "max", "--json", "--region", regions.path])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(!lines.contains { $0.contains(#"\/"#) }, "\(lines.filter { $0.contains(#"\/"#) })")
        // The drive starts in Beijing and leaves it: both region lines, and the zone of every placemark.
        #expect(lines.filter { $0.contains(#""region":"cn/beijing""#) }.count == 2, "\(r.out.suffix(2000))")
        let zoned = lines.filter { $0.contains(#""timeZone":"#) }
        #expect(zoned.count >= lines.filter { $0.contains(#""event":"placemark""#) }.count && zoned.count > 400)
        #expect(zoned.allSatisfy { $0.contains(#""timeZone":"Asia/Shanghai""#) })
        for line in lines where line.contains(#""event":"region_"#) {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(o["region"] as? String == "cn/beijing")
        }
    }

    @Test func trackNMEAAsNDJSON() async throws {
        let log = Self.root.appendingPathComponent("Tests/LocationSourcesTests/Corpus/ublox-8.log").path
        let r = try await Self.run(["track", "--nmea", log, "--speed", "max", "--json"])
        #expect(r.status == 0, "\(r.err)")
        let objects = try r.out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let placemarks = objects.filter { $0["event"] as? String == "placemark" }
        #expect(placemarks.count >= 50)  // 72 reporting cycles in this log
        #expect(placemarks.count == objects.filter { $0["event"] as? String == "location" }.count)
        // The u-blox log was recorded in Bend, Oregon (its header says so).
        for p in placemarks {
            let place = p["placemark"] as? [String: Any]
            #expect(place?["administrativeAreaCode"] as? String == "US-OR" && place?["isoCountryCode"] as? String == "US")
        }
    }

    @Test func trackNeedsExactlyOneSource() async throws {
        #expect(try await Self.run(["track"]).status == 2)
        #expect(try await Self.run(["track", "--gpx", "a.gpx", "--nmea", "b.log"]).status == 2)
        #expect(try await Self.run(["track", "--serial", "/dev/null", "--baud", "1234"]).status == 2)
        #expect(try await Self.run(["track", "--gpx", "/nonexistent.gpx"]).status == 5)
    }

    /// A missing --region file is a missing input file like a missing --gpx (exit 5, named), not bad
    /// data (it was exit 3 with Foundation's "The file doesn't exist", naming nothing).
    @Test func aMissingRegionFileIsNamed() async throws {
        let gpx = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx").path
        let r = try await Self.run(["track", "--gpx", gpx, "--speed", "max", "--region", "/nonexistent/regions.json"])
        #expect(r.status == 5, "\(r.err)")
        #expect(r.err == "geocode: cannot read /nonexistent/regions.json: no such file\n", "\(r.err)")
        #expect(r.out.isEmpty)
    }

    /// A region whose code no unit of the data has (Langfang is 131000, not 131001) was monitored and
    /// never fired: exit 0, not a word. Now the run stops at start, exit 3, naming file, region and code.
    @Test func aRegionTheDataDoesNotHaveIsNamed() async throws {
        let gpx = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx").path
        let regions = TemporaryDirectory.shared.uniqueURL("regions", extension: "json")
        try Data(#"{"regions": [{"id": "beijing", "area": "province 110000"}, {"id": "langfang", "area": "city 131001"}]}"#.utf8)
            .write(to: regions)
        let r = try await Self.run(["track", "--gpx", gpx, "--speed", "max", "--region", regions.path])
        #expect(r.status == 3, "\(r.out)")
        #expect(r.err == "geocode: \(regions.path): region \"langfang\": no city in the loaded data has code \"131001\"\n", "\(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func ctrlCStopsTrackCleanly() async throws {
        let gpx = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx").path
        // Real-time playback takes over an hour; interrupt it once it has printed something.
        let process = Process()
        process.executableURL = GeocodeBinary.url
        process.arguments = ["track", "--gpx", gpx]
        process.environment = GeocodeBinary.environment(Self.realData)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let firstLine: String = try await withCheckedThrowingContinuation { c in
            Thread {
                var line = Data()
                while let byte = try? pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                    line.append(byte)
                }
                c.resume(returning: String(decoding: line, as: UTF8.self))
            }.start()
        }
        #expect(firstLine.contains("location 39.908700,116.397500"))
        process.interrupt()
        let status = await process.exitStatus()
        #expect(status == 130)
    }

    @Test func batchOnTheBundledData() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geocode-real-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.csv"), output = dir.appendingPathComponent("out.csv")
        try Data("""
            id,lat,lon
            1,39.9087,116.3975
            2,52.5200,13.4050
            3,0,-150
            4,abc,116
            5,23.1291,113.3644
            """.utf8).write(to: input)
        let r = try await Self.run(["batch", input.path, "-o", output.path, "--fields", "country,province,city,district", "--quiet"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("in.csv:5:"))   // the bad row, by its line number
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "id,lat,lon,country,province,city,district,geocode_error")
        #expect(lines[1] == "1,39.9087,116.3975,中国,北京市,北京市,东城区,")
        // Outside China the localities dataset answers: the nearest GeoNames place of 15,000+ in the point's
        // province, here Berlin's section Mitte: the city is Berlin, the section its district (subLocality).
        #expect(lines[2] == "2,52.5200,13.4050,Germany,Berlin,Berlin,Mitte,")
        #expect(lines[3] == "3,0,-150,,,,,")
        #expect(lines[4].hasPrefix("4,abc,116,,,,,") && lines[4].count > "4,abc,116,,,,,".count)
        #expect(lines[5] == "5,23.1291,113.3644,中国,广东省,广州市,天河区,")
    }

    @Test func infoListsTheBundledDatasets() async throws {
        let r = try await Self.run(["info"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("1. china") && r.out.contains("2. localities") && r.out.contains("3. world"))
        #expect(r.out.contains("china_district.shp: 2874 units"))
        #expect(r.out.contains("world_province.shp: 4556 units"))
        #expect(r.out.contains("localities.shp: 34436 units"))
        let json = try await Self.run(["info", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect((object["datasets"] as? [[String: Any]])?.map { $0["name"] as? String } == ["china", "localities", "world", "timezones"])
    }

    /// A directory given as a positional argument was ignored: `info DIR` described, and `index DIR`
    /// built, the bundled data, exit 0. Now a usage error that points at --data.
    @Test(arguments: ["info", "index"])
    func aDirectoryWithoutDataIsAUsageError(_ command: String) async throws {
        let r = try await Self.run([command, "/nonexistent/dir"])
        #expect(r.status == 2, "\(r.out)")
        #expect(r.err.hasPrefix("geocode: unexpected argument \"/nonexistent/dir\" (did you mean --data /nonexistent/dir?)\n"), "\(r.err)")
        #expect(r.err.contains("Try 'geocode \(command) --help'"))
        #expect(r.out.isEmpty)
    }

    @Test func indexBuildsTheCacheThatLaterCommandsMap() async throws {
        let cache = try TemporaryDirectory.shared.newFolder("index-command")
        let env = ["GEOCODE_CACHE_DIR": cache.path]
        let first = try await Self.run(["index"], environment: env)
        #expect(first.status == 0, "\(first.err)")
        let lines = first.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 5 && lines[4].hasPrefix("ready in "), "\(first.out)")
        #expect(lines[0].hasPrefix("china: \(cache.path)/china-") && lines[0].hasSuffix(": rebuilt (no cache file yet)"), "\(lines[0])")
        #expect(lines[1].hasPrefix("localities: \(cache.path)/localities-") && lines[1].contains(".geoidx ("), "\(lines[1])")
        #expect(lines[2].hasPrefix("world: \(cache.path)/world-") && lines[2].contains(".geoidx ("), "\(lines[2])")
        #expect(lines[3].hasPrefix("timezones: \(cache.path)/timezones-") && lines[3].contains(".geoidx ("), "\(lines[3])")
        let again = try await Self.run(["index"], environment: env)
        #expect(again.out.split(separator: "\n").prefix(4).allSatisfy { $0.hasSuffix(": loaded") }, "\(again.out)")
        let info = try await Self.run(["info"], environment: env)
        #expect(info.out.contains("index cache: \(cache.path)/china-") && info.out.contains(".geoidx (loaded)"), "\(info.out)")
        let point = try await Self.run(["39.9087", "116.3975"], environment: env)
        #expect(point.out.contains("东城区"))
        // --rebuild of one dataset (rebuilding all four again cost ~20 s of CI's CPU): its file is removed
        // and written anew, at the path the whole data directory maps afterwards.
        let china = Self.root.appendingPathComponent("Data/china").path
        let rebuilt = try await Self.run(["index", "--rebuild", "--data", china], environment: env)
        let rebuiltLines = rebuilt.out.split(separator: "\n").map(String.init)
        #expect(rebuilt.status == 0 && rebuiltLines.count == 2 && rebuiltLines[1].hasPrefix("ready in "), "\(rebuilt.out)")
        #expect(rebuiltLines.first.map { $0.hasPrefix("china: \(cache.path)/china-") && $0.hasSuffix(": rebuilt (no cache file yet)") } == true,
                "\(rebuilt.out)")
        let afterRebuild = try await Self.run(["index"], environment: env)
        #expect(afterRebuild.out.split(separator: "\n").prefix(4).allSatisfy { $0.hasSuffix(": loaded") }, "\(afterRebuild.out)")
        let off = try await Self.run(["index"], environment: ["GEOCODE_CACHE_DIR": "off"])
        #expect(off.status == 2 && off.err.contains("the index cache is off"))
    }
}
