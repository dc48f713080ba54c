import Foundation
import Testing

/// OUT is replaced only by a complete run: killed, interrupted or failed runs leave the previous OUT as
/// it was.
@Suite(.serialized) struct BatchAtomicityTests {
    let previous = Data("previous contents\n".utf8)

    /// A folder with an existing OUT holding `previous`.
    func folderWithPreviousOut() throws -> (folder: URL, out: URL) {
        let folder = try TemporaryDirectory.shared.newFolder("atomic")
        let out = folder.appendingPathComponent("out.csv")
        try previous.write(to: out)
        return (folder, out)
    }

    /// Starts a batch reading a pipe, feeds it `rows` rows but keeps the pipe open, so the run is certainly
    /// mid-way, and waits until it has written part of its output into the temporary file.
    func startMidRun(out: URL, folder: URL, rows: Int) async throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = GeocodeBinary.gridURL
        process.arguments = ["batch", "-", "--format", "csv", "-o", out.path, "--threads", "2", "-q"]
        process.environment = GeocodeBinary.environment()
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = "id,lat,lon\n"
        for i in 0..<rows { text += "\(i),\(Double(i % 170) - 85),\(Double(i % 350) - 175)\n" }
        try pipe.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        // The run keeps waiting for more input, so the only limit is a hang guard, long enough for a starved machine.
        let partial = try await poll(every: .milliseconds(20), upTo: .seconds(1800)) {
            try temporaryFiles(in: folder).first.map { fileSize($0) > 0 } ?? false
        }
        if !partial { Issue.record("no partial output appeared within 30 minutes") }
        return (process, pipe)
    }

    func fileSize(_ url: URL) -> Int {
        var status = stat()
        return stat(url.path, &status) == 0 ? Int(status.st_size) : -1
    }

    func temporaryFiles(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil, options: [])
            .filter { $0.lastPathComponent.hasPrefix(".out.csv.geocode-") }
    }

    @Test func sigkillMidRunLeavesPreviousOutUntouched() async throws {
        let (folder, out) = try folderWithPreviousOut()
        let (process, pipe) = try await startMidRun(out: out, folder: folder, rows: 150_000)
        kill(process.processIdentifier, SIGKILL)
        await process.exitStatus()
        try pipe.fileHandleForWriting.close()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(try Data(contentsOf: out) == previous)
        // SIGKILL cannot be caught: the partial temporary file may stay, hidden and recognisable.
        #expect(try temporaryFiles(in: folder).count == 1)

        // A complete run afterwards replaces OUT.
        let ok = try await GeocodeBinary.run(["batch", "-", "--format", "csv", "-o", out.path, "-q"], piped: "lat,lon\n45.5,12.25\n")
        #expect(ok.status == 0)
        #expect(String(decoding: try Data(contentsOf: out), as: UTF8.self).hasPrefix("lat,lon,country"))
    }

    @Test func sigkillOnALargeFileLeavesNoOut() async throws {
        // The issue's scenario as such: a large input file, no previous OUT, killed mid-run.
        let folder = try TemporaryDirectory.shared.newFolder("atomic-large")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.csv")
        try LargeCSV(rows: 400_000).write(to: input)
        let out = folder.appendingPathComponent("out.csv")
        let process = Process()
        process.executableURL = GeocodeBinary.gridURL
        process.arguments = ["batch", input.path, "-o", out.path, "--threads", "1", "-q"]
        process.environment = GeocodeBinary.environment()
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Either it is caught mid-way or it has finished: only a hang ends the polling by its limit.
        var sawPartial = false
        _ = try await poll(every: .milliseconds(5), upTo: .seconds(1800)) {
            if let temp = try temporaryFiles(in: folder).first, fileSize(temp) > 0 { sawPartial = true }
            return sawPartial || !process.isRunning
        }
        kill(process.processIdentifier, SIGKILL)
        await process.exitStatus()
        if sawPartial {
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(!FileManager.default.fileExists(atPath: out.path))
        } else {
            // Finished before we could catch it mid-way (a very fast machine): then OUT must be complete.
            #expect(process.terminationStatus == 0)
            #expect(FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test func sigintRemovesTheTemporaryFile() async throws {
        let (folder, out) = try folderWithPreviousOut()
        let (process, pipe) = try await startMidRun(out: out, folder: folder, rows: 50_000)
        kill(process.processIdentifier, SIGINT)
        await process.exitStatus()
        try pipe.fileHandleForWriting.close()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 130)
        #expect(try Data(contentsOf: out) == previous)
        #expect(try temporaryFiles(in: folder).isEmpty)
    }

    @Test func failingRunLeavesPreviousOutAndNoTemporaryFile() async throws {
        let (folder, out) = try folderWithPreviousOut()
        // Valid features, then a broken collection: fatal, but only discovered at the end.
        let broken = "{\"type\":\"FeatureCollection\",\"features\":[" +
            String(repeating: "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]},\"properties\":{}},", count: 5000) +
            "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{}}] } trailing"
        let input = folder.appendingPathComponent("in.geojson")
        try Data(broken.utf8).write(to: input)
        let r = try await GeocodeBinary.run(["batch", input.path, "-o", out.path, "-F", "csv"])
        #expect(r.status == 3)
        #expect(r.err.contains("in.geojson:1: GeoJSON: unexpected data after the end of the FeatureCollection"))
        #expect(try Data(contentsOf: out) == previous)
        #expect(try temporaryFiles(in: folder).isEmpty)
    }

    @Test func strictStopsWithExitThreeAndWritesNothing() async throws {
        let (folder, out) = try folderWithPreviousOut()
        let r = try await GeocodeBinary.run(["batch", Fixture.url("golden/bad-rows.csv").path, "-o", out.path, "--strict"])
        #expect(r.status == 3)
        #expect(r.err.contains("bad-rows.csv:5: bad row: latitude \"abc\" is not a number"))
        #expect(r.err.contains("--strict"))
        #expect(try Data(contentsOf: out) == previous)
        #expect(try temporaryFiles(in: folder).isEmpty)
        // To stdout, exactly the rows before the bad one come out.
        let toStdout = try await GeocodeBinary.run(["batch", Fixture.url("golden/bad-rows.csv").path, "--strict", "-q"])
        #expect(toStdout.status == 3)
        #expect(toStdout.out == (try Fixture.text("golden/expected/bad-rows.csv")).split(separator: "\n", omittingEmptySubsequences: false)
            .prefix(4).joined(separator: "\n") + "\n")
    }

    @Test func strictStopsWithoutWaitingForTheEndOfAPipe() async throws {
        // `producer | geocode batch --strict`: the bad row must stop the run even though stdin stays open.
        let process = Process()
        process.executableURL = GeocodeBinary.gridURL
        process.arguments = ["batch", "-", "--format", "csv", "--strict", "-q"]
        process.environment = GeocodeBinary.environment()
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try pipe.fileHandleForWriting.write(contentsOf: Data("lat,lon\n45.5,12.25\n".utf8))
        // Enough rows after the bad one to fill a chunk, so the reader hands it over without EOF.
        var rows = "oops,1\n"
        for _ in 0..<30_000 { rows += "1,2\n" }
        try pipe.fileHandleForWriting.write(contentsOf: Data(rows.utf8))
        // Without the fix it waits for EOF forever; with it, it ends however slow the machine. The limit is a hang guard.
        let finished = try await poll(every: .milliseconds(10), upTo: .seconds(1800)) { !process.isRunning }
        if !finished { process.terminate() }
        try pipe.fileHandleForWriting.close()
        await process.exitStatus()
        #expect(finished, "still waiting for stdin after the bad row")
        #expect(process.terminationStatus == 3)
    }

    @Test func ioErrorsAreExitFive() async throws {
        let missing = try await GeocodeBinary.run(["batch", "/nonexistent/in.csv"])
        #expect(missing.status == 5)
        #expect(missing.err.contains("cannot open /nonexistent/in.csv"))
        let noDir = try await GeocodeBinary.run(["batch", Fixture.url("golden/points.tsv").path, "-o", "/nonexistent/dir/out.tsv"])
        #expect(noDir.status == 5)
        #expect(noDir.err.contains("cannot create a temporary file in /nonexistent/dir"))
    }

    @Test func writeFailureIsExitFive() async throws {
        // /dev/full: every write fails with ENOSPC, as on a full disk. (A device is written directly.)
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let r = try await GeocodeBinary.run(["batch", Fixture.url("golden/points.tsv").path, "-o", "/dev/full"])
        #expect(r.status == 5)
        #expect(r.err.contains("cannot write /dev/full: No space left on device"), "\(r.err)")
    }

    @Test func writesThroughASymlinkedOut() async throws {
        let (folder, out) = try folderWithPreviousOut()
        let link = folder.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: out)
        let r = try await GeocodeBinary.run(["batch", Fixture.url("golden/headerless.csv").path, "-o", link.path, "-q"])
        #expect(r.status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == out.path)
        #expect(try Data(contentsOf: out) == Fixture.data("golden/expected/headerless.csv"))
    }

    @Test func keepsThePermissionsOfAReplacedFile() async throws {
        let (_, out) = try folderWithPreviousOut()
        chmod(out.path, 0o640)
        let r = try await GeocodeBinary.run(["batch", Fixture.url("golden/headerless.csv").path, "-o", out.path, "-q"])
        #expect(r.status == 0)
        var status = stat()
        #expect(stat(out.path, &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o640)
    }
}
