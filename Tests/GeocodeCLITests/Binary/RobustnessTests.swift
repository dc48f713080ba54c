#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// Issue 18's faults 2, 3, 4, 5, 8 and 9, each through the real binary on real files, real processes
/// and, for permissions, a real unprivileged user (root reads mode-000 folders, so as root the binary
/// runs under `setpriv` as nobody).
@Suite(.serialized)
struct RobustnessTests {
    static let root = TrackAndInfoTests.root
    static let gpx = root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx")

    /// Where stdout goes.
    enum Output {
        case file
        case device(String)
        case closed
    }

    /// Runs the binary (the real engine, or `geocode-testgrid` when `grid`), as nobody when `unprivileged`, on a thread of its own.
    static func run(_ arguments: [String], grid: Bool = false, unprivileged: Bool = false, stdout: Output = .file,
                    environment extra: [String: String] = [:]) async throws -> GeocodeBinary.Result {
        var env = GeocodeBinary.environment(["GEOCODE_CELL_SIZE": "0"])
        if !grid { env["GEOCODE_TEST_LOOKUP"] = "" }
        env.merge(extra) { $1 }
        var command = [(grid ? GeocodeBinary.gridURL : GeocodeBinary.url).path] + arguments
        if unprivileged && geteuid() == 0 {
            command = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command
        }
        if case .closed = stdout { command = ["/bin/sh", "-c", "exec \"$@\" >&-", "sh"] + command }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = env
        var device: FileHandle?
        if case .device(let path) = stdout { device = try #require(FileHandle(forWritingAtPath: path)) }
        return try await GeocodeBinary.capture(process, stdout: device)
    }

    /// Whether nobody can be had (as root: setpriv works; as another user: mode 000 applies anyway).
    static let canRunUnprivileged: Bool = {
        guard geteuid() == 0 else { return true }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/true"]
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// A copy of the bundled data (the datasets named, plus LICENSES/, a folder that is no dataset),
    /// readable by everyone.
    static func dataCopy(_ datasets: [String] = ["china", "world"]) throws -> URL {
        let dir = try TemporaryDirectory.shared.newFolder("data")
        chmod(TemporaryDirectory.shared.url.path, 0o755)
        for name in datasets + ["LICENSES"] {
            try FileManager.default.copyItem(at: root.appendingPathComponent("Data/\(name)"), to: dir.appendingPathComponent(name))
        }
        return dir
    }

    // MARK: Fault 2: no silent skips

    @Test(.enabled(if: canRunUnprivileged, "no unprivileged user (setpriv as nobody failed)"))
    func anUnreadableDatasetFolderIsAPermissionError() async throws {
        let data = try Self.dataCopy()
        let china = data.appendingPathComponent("china")
        chmod(china.path, 0)
        defer { chmod(china.path, 0o755) }
        let r = try await Self.run(["39.9087", "116.3975", "--data", data.path], unprivileged: true, environment: ["GEOCODE_CACHE_DIR": "off"])
        #expect(r.status == 4, "\(r.out)")
        #expect(r.err.contains("dataset folder \(china.path): cannot be read: permission denied"), "\(r.err)")
        #expect(r.out.isEmpty)

        // Asked for: a warning, and the world dataset answers.
        let skipped = try await Self.run(["39.9087", "116.3975", "--data", data.path, "--skip-broken-datasets"],
                                         unprivileged: true, environment: ["GEOCODE_CACHE_DIR": "off"])
        #expect(skipped.status == 0, "\(skipped.err)")
        #expect(skipped.err.contains("warning: skipped dataset folder \(china.path): cannot be read: permission denied"))
        #expect(skipped.out.contains("province: Beijing (CN-BJ)") && skipped.out.contains("dataset:  world"))
    }

    @Test(.enabled(if: canRunUnprivileged, "no unprivileged user (setpriv as nobody failed)"))
    func anUnreadableManifestIsAPermissionErrorNotAMissingFile() async throws {
        let data = try Self.dataCopy(["china"])
        let manifest = data.appendingPathComponent("china/manifest.json")
        chmod(manifest.path, 0)
        let r = try await Self.run(["info", "--data", data.path], unprivileged: true, environment: ["GEOCODE_CACHE_DIR": "off"])
        #expect(r.status == 4)
        #expect(r.err.contains("dataset folder \(data.path)/china: manifest.json cannot be read: permission denied"), "\(r.err)")
        #expect(!r.err.contains("no such file"))
    }

    @Test func aDatasetFolderWithoutManifestIsAnErrorButLicensesIsNoDataset() async throws {
        let data = try Self.dataCopy(["china", "world"])
        try FileManager.default.removeItem(at: data.appendingPathComponent("china/manifest.json"))
        let r = try await Self.run(["39.9087", "116.3975", "--data", data.path])
        #expect(r.status == 4)
        #expect(r.err.contains("dataset folder \(data.path)/china: has shapefiles (china_city.shp, china_district.shp, china_province.shp) but no manifest.json"),
                "\(r.err)")
        #expect(!r.err.contains("LICENSES"))
        // --data pointing into the dataset folder itself says the same.
        let inside = try await Self.run(["39.9087", "116.3975", "--data", data.appendingPathComponent("china").path])
        #expect(inside.status == 4 && inside.err.contains("but no manifest.json"), "\(inside.err)")
    }

    // MARK: Fault 9: integrity

    @Test func oneMistypedDigitInTheDBFIsCaughtByTheManifestsSHA256() async throws {
        let data = try Self.dataCopy(["china"])
        let dbf = data.appendingPathComponent("china/china_district.dbf")
        var bytes = try Data(contentsOf: dbf)
        let at = try #require(bytes.firstRange(of: Data("110101".utf8)))
        bytes[at.upperBound - 1] = UInt8(ascii: "9")
        try bytes.write(to: dbf)
        let cache = try TemporaryDirectory.shared.newFolder("cache")
        let r = try await Self.run(["39.9087", "116.3975", "--data", data.path], environment: ["GEOCODE_CACHE_DIR": cache.path])
        #expect(r.status == 4)
        #expect(r.err.contains("\(dbf.path): contents differ from the manifest (sha256 \(try SHA256Sum.of(dbf.path)), "
                               + "manifest lists deadb78866efaf49b515a1d63f2395bd7020bad32d5673a4a2c049957905c021)"), "\(r.err)")
        let allowed = try await Self.run(["39.9087", "116.3975", "--data", data.path, "--allow-modified-data"],
                                         environment: ["GEOCODE_CACHE_DIR": cache.path])
        #expect(allowed.status == 0, "\(allowed.err)")
        #expect(allowed.out.contains("(110109)"))
        #expect(allowed.err.contains("warning: \(dbf.path): contents differ from the manifest"))
        // The cache it wrote does not let a later run without the flag use the changed file.
        let later = try await Self.run(["39.9087", "116.3975", "--data", data.path], environment: ["GEOCODE_CACHE_DIR": cache.path])
        #expect(later.status == 4 && later.err.contains("contents differ from the manifest"))
    }

    // MARK: Fault 3: index that could not write the cache

    @Test func indexThatCannotWriteTheCacheExitsFive() async throws {
        let data = try Self.dataCopy(["world"])
        // A file in the way of the cache directory.
        let blocker = try TemporaryDirectory.shared.newFile("not-a-directory")
        let r = try await Self.run(["index", "--data", data.path], environment: ["GEOCODE_CACHE_DIR": blocker.path])
        #expect(r.status == 5, "\(r.out)\(r.err)")
        #expect(r.out.contains("not written") && !r.out.contains("ready in"))
        #expect(r.err.contains("index cache not written for world: \(blocker.path): cannot open: a file is in the way of the cache directory"),
                "\(r.err)")
        let help = try await Self.run(["index", "--help"], grid: true)
        #expect(help.out.contains("5 a cache file could not"))
    }

    /// A one-point run whose cache cannot be written (a file where a folder of its path should be) answers,
    /// exit 0, and says on stderr, in one line for the one reason, that every run builds the index again:
    /// before, each run took seconds instead of milliseconds without a word.
    @Test func aCacheThatCannotBeWrittenIsSaidOnEveryRun() async throws {
        let data = try Self.dataCopy(["world", "timezones"])
        let blocker = try TemporaryDirectory.shared.newFile("home-is-a-file")
        let cache = blocker.appendingPathComponent("cache")
        for _ in 0..<2 {
            let r = try await Self.run(["52.52", "13.405", "--data", data.path], environment: ["GEOCODE_CACHE_DIR": cache.path])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.contains("Berlin"), "\(r.out)")
            let lines = r.err.split(separator: "\n").filter { $0.contains("not written") }
            #expect(lines.count == 1, "\(r.err)")
            let line = String(lines.first ?? "")
            #expect(line.hasPrefix("geocode: warning: index cache not written for world, timezones: \(cache.path): cannot open: "
                                   + "cannot create the cache directory: \(blocker.path) is a file, not a folder; building them took "), "\(line)")
            #expect(line.hasSuffix(" s, which every load will pay again until they can be written"), "\(line)")
        }
        #expect(!FileManager.default.fileExists(atPath: cache.path))
    }

    // MARK: Fault 4: lost output

    @Test func aSingleQueryWhoseOutputIsLostExitsFive() async throws {
        for json in [false, true] {
            let args = ["1.5", "2.5"] + (json ? ["--json"] : [])
            let ok = try await Self.run(args, grid: true)
            #expect(ok.status == 0 && !ok.out.isEmpty)
            let full = try await Self.run(args, grid: true, stdout: .device("/dev/full"))
            #expect(full.status == 5)
            #expect(full.err.contains("cannot write <stdout>: No space left on device"), "\(full.err)")
            let closed = try await Self.run(args, grid: true, stdout: .closed)
            #expect(closed.status == 5)
            #expect(closed.err.contains("cannot write <stdout>: Bad file descriptor"), "\(closed.err)")
        }
    }

    @Test func infoAndIndexWhoseOutputIsLostExitFive() async throws {
        let data = try Self.dataCopy(["world"])
        let cache = try TemporaryDirectory.shared.newFolder("cache")
        for command in ["info", "index"] {
            for output in [Output.device("/dev/full"), .closed] {
                let r = try await Self.run([command, "--data", data.path], stdout: output, environment: ["GEOCODE_CACHE_DIR": cache.path])
                #expect(r.status == 5, "\(command) \(output): \(r.err)")
                #expect(r.err.contains("cannot write <stdout>"))
            }
        }
    }

    // MARK: Fault 5: track

    @Test func trackOnADirectoryNamesThePath() async throws {
        let dir = try TemporaryDirectory.shared.newFolder("a-directory")
        for option in ["--gpx", "--nmea"] {
            let r = try await Self.run(["track", option, dir.path, "--speed", "max"], grid: true)
            #expect(r.status == 5)
            #expect(r.err.contains("cannot read \(dir.path): it is a directory, not a file"), "\(r.err)")
            #expect(!r.err.contains("NSCocoaErrorDomain"))
        }
    }

    @Test func trackOnAGPXThatCannotBeParsedExitsThree() async throws {
        let whole = try Data(contentsOf: Self.gpx)
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("truncated", whole.prefix(whole.count / 2)),
            ("malformed", Data("<?xml version=\"1.0\"?><gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"></trk></gpx>".utf8)),
        ]
        for (name, bytes) in cases {
            let file = try TemporaryDirectory.shared.newFile(name, extension: "gpx")
            try bytes.write(to: file)
            let r = try await Self.run(["track", "--gpx", file.path, "--speed", "max"], grid: true)
            #expect(r.status == 3, "\(name): \(r.err)")
            #expect(r.err.contains("cannot parse the --gpx file: \(file.lastPathComponent)"), "\(name): \(r.err)")
        }
        // The whole file still plays and exits 0.
        let ok = try await Self.run(["track", "--gpx", Self.gpx.path, "--speed", "max"], grid: true)
        #expect(ok.status == 0, "\(ok.err)")
    }

    /// One bad point at the end of 2,000 good ones stopped the whole replay: nothing played, exit 3.
    /// Now, as with a line an NMEA log rejects, it is an "error" event naming the file, line, field and
    /// value, the good points play, and the exit status is 0.
    @Test func trackOnAGPXWithABadPointPlaysTheRestAndExitsZero() async throws {
        let count = 2_000
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<gpx version=\"1.1\" creator=\"RobustnessTests\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        for i in 0..<count {  // lines 3...2002, one second apart
            let time = String(format: "2024-05-01T%02d:%02d:%02dZ", i / 3600, i / 60 % 60, i % 60)
            text += String(format: "<trkpt lat=\"%.5f\" lon=\"%.5f\">", 39.85 + Double(i) * 1e-5, 116.30 + Double(i) * 1e-5)
                + "<time>\(time)</time></trkpt>\n"
        }
        text += "<trkpt lat=\"95\" lon=\"116.4\"><time>2024-05-01T01:00:00Z</time></trkpt>\n</trkseg></trk></gpx>\n"
        let file = try TemporaryDirectory.shared.newFile("bad-point", extension: "gpx")
        try Data(text.utf8).write(to: file)

        let r = try await Self.run(["track", "--gpx", file.path, "--speed", "max"], grid: true)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.isEmpty, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(lines.filter { $0.contains(" location ") }.count == count)
        #expect(lines.filter { $0.hasPrefix("error ") }
                == ["error parse error: \(file.lastPathComponent):2003: trkpt lat: \"95\" is outside -90...90"])
    }

    /// A line of text in an NMEA log (`hello world` between sentences) was skipped without a word;
    /// it is now an "error" event naming the file and line, like a bad checksum, and the exit status
    /// stays 0 with the same fixes as the clean log.
    @Test func trackOnAnNMEALogWithATextLineReportsItAndExitsZero() async throws {
        let corpus = Self.root.appendingPathComponent("Tests/LocationSourcesTests/Corpus/bu353s4.log")
        var lines = try String(contentsOf: corpus, encoding: .utf8).components(separatedBy: "\n")
        lines.insert("hello world", at: 20)  // line 21
        let file = try TemporaryDirectory.shared.newFile("text-line", extension: "log")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)

        let clean = try await Self.run(["track", "--nmea", corpus.path, "--speed", "max"], grid: true)
        let r = try await Self.run(["track", "--nmea", file.path, "--speed", "max"], grid: true)
        #expect(r.status == 0, "\(r.err)")
        let out = r.out.split(separator: "\n")
        #expect(out.filter { $0.hasPrefix("error ") }
                == ["error parse error: \(file.lastPathComponent):21: does not start with '$' or '!': hello world"])
        let locations = out.filter { $0.contains(" location ") }
        #expect(!locations.isEmpty && locations == clean.out.split(separator: "\n").filter { $0.contains(" location ") })
    }

    @Test func trackWhoseOutputIsLostExitsFive() async throws {
        let r = try await Self.run(["track", "--gpx", Self.gpx.path, "--speed", "max"], grid: true, stdout: .device("/dev/full"))
        #expect(r.status == 5)
        #expect(r.err.contains("cannot write <stdout>: No space left on device"))
    }

    @Test func trackOnAMissingSerialDeviceGivesUpAfterRetryFor() async throws {
        let r = try await Self.run(["track", "--serial", "/dev/nonexistent-\(getpid())", "--retry-for", "0.2"], grid: true)
        #expect(r.status == 5)
        #expect(r.out.contains("gave up after retrying for 0.2 s"), "\(r.out)")
        #expect(r.err.contains("gave up on serial device /dev/nonexistent-\(getpid())"))
        let help = try await Self.run(["track", "--help"], grid: true)
        #expect(help.out.contains("--retry-for SECONDS") && help.out.contains("default 30"))
        #expect(try await Self.run(["track", "--gpx", Self.gpx.path, "--retry-for", "1"], grid: true).status == 2)
        #expect(try await Self.run(["track", "--serial", "/dev/null", "--retry-for", "soon"], grid: true).status == 2)
    }

    // MARK: Fault 8: leftovers of killed writers

    /// A real process that creates `path` (with `$$`, its pid, substituted), optionally flocks it, says
    /// "ready" and sleeps, holding the file open as a writer would.
    final class Writer {
        let process = Process()
        let path: String
        init(directory: URL, name: String, lock: Bool) throws {
            let script = "exec 3>\"$0/\(name)\"; " + (lock ? "flock -x 3; " : "") + "echo \"$0/\(name)\"; exec sleep 600"
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, directory.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            var line = Data()
            while let byte = try pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
            path = String(decoding: line, as: UTF8.self)
        }
        func kill9() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        deinit { if process.isRunning { kill9() } }
    }

    @Test func temporaryFilesOfKilledCacheWritersAreRemovedAndLiveOnesKept() async throws {
        let data = try Self.dataCopy(["world"])
        let cache = try TemporaryDirectory.shared.newFolder("cache")
        // Ours: `.<cache file>.tmp-<pid>-<random>`, under flock. Killed with -9 mid-write, and alive.
        let killed = try Writer(directory: cache, name: ".world-0.geoidx.tmp-$$-k1", lock: true)
        let alive = try Writer(directory: cache, name: ".world-0.geoidx.tmp-$$-a1", lock: true)
        // Alive between open and flock: no lock yet, but its pid is a process.
        let unlocked = try Writer(directory: cache, name: ".world-0.geoidx.tmp-$$-u1", lock: false)
        // Foundation's, from earlier versions: one whose writer was killed, one still open by a live process.
        let legacyKilled = try Writer(directory: cache, name: ".dat.nosyncK1", lock: false)
        let legacyAlive = try Writer(directory: cache, name: ".dat.nosyncA1", lock: false)
        killed.kill9()
        legacyKilled.kill9()
        for w in [killed, alive, unlocked, legacyKilled, legacyAlive] { #expect(FileManager.default.fileExists(atPath: w.path)) }

        let r = try await Self.run(["1", "2", "--data", data.path], environment: ["GEOCODE_CACHE_DIR": cache.path])
        #expect(r.status == 0 || r.status == 1, "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: killed.path))
        #expect(!FileManager.default.fileExists(atPath: legacyKilled.path))
        #expect(FileManager.default.fileExists(atPath: alive.path))
        #expect(FileManager.default.fileExists(atPath: unlocked.path))
        #expect(FileManager.default.fileExists(atPath: legacyAlive.path))
        // And the run's own write left nothing behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(names.filter { $0.contains(".tmp-") || $0.hasPrefix(".dat.nosync") }.count == 3, "\(names)")
        #expect(names.contains { $0.hasPrefix("world-") && $0.hasSuffix(".geoidx") })
        for w in [alive, unlocked, legacyAlive] { w.kill9() }
    }

    /// Issue 17: a batch killed with -9 left `.OUT.geocode-…` behind; the next run on the same OUT removes
    /// it once its writer is provably gone, and leaves a live writer's (and other OUTs') alone.
    @Test func batchTemporaryFilesOfKilledRunsOnTheSameOutputAreRemoved() async throws {
        let dir = try TemporaryDirectory.shared.newFolder("batch-out")
        let input = dir.appendingPathComponent("in.csv")
        try Data("lat,lon\n1.5,2.5\n".utf8).write(to: input)
        let killed = try Writer(directory: dir, name: ".out.csv.geocode-$$-k1abcd", lock: true)
        let alive = try Writer(directory: dir, name: ".out.csv.geocode-$$-a1abcd", lock: true)
        let otherOutput = try Writer(directory: dir, name: ".other.csv.geocode-$$-o1abcd", lock: true)
        killed.kill9()
        otherOutput.kill9()
        let r = try await Self.run(["batch", input.path, "-o", dir.appendingPathComponent("out.csv").path, "--quiet"], grid: true)
        #expect(r.status == 0, "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: killed.path))
        #expect(FileManager.default.fileExists(atPath: alive.path))
        #expect(FileManager.default.fileExists(atPath: otherOutput.path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.csv").path))
        alive.kill9()
    }
}

