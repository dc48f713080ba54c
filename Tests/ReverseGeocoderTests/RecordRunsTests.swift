import Foundation
import Testing
@testable import ReverseGeocoder

/// A layer's records are read in runs by several workers (``DatasetLoader``): the layer, and the index
/// cache written from it, must be what one worker reading record by record makes, and a bad record must be
/// reported as one worker reports it: the first bad one in record order, not the one a worker met first.
///
/// Oracles: the one-worker read (the loop as it was before the runs), and the bad records the test wrote.
/// `recordRuns` with `lastFirst` hands the runs out last to first, so a later run meets its bad record
/// before an earlier run meets its own, whatever the scheduler and the number of idle cores do.
struct RecordRunsTests {
    typealias R = TestShapefile.Record

    /// 200 records, boxes on a 20 × 10 grid (record r at column r % 20, row r / 20), with the bad records
    /// given: `text` ones carry GBK bytes in a file that declares UTF-8; `vertex` ones have a corner at
    /// x = 1000, which is no longitude.
    static func layer(name: String, badText: Set<Int> = [], badVertex: Set<Int> = []) -> URL {
        var records: [R] = []
        for r in 0..<200 {
            let x = Double(r % 20), y = Double(r / 20)
            var ring = TestShapefile.box(x, y, x + 1, y + 1)
            if badVertex.contains(r) { ring[2] = (1000, y + 1) }
            records.append(badText.contains(r)
                ? R(rings: [ring], ["CODE": "\(r)"], raw: ["NAME": [0xB1, 0xB1, 0xBE, 0xA9]])
                : R(rings: [ring], ["NAME": "unit \(r)", "CODE": "\(r)"]))
        }
        let dir = TestShapefile.directory(name)
        return TestShapefile.write(dir.appendingPathComponent("units"), fields: ["NAME", "CODE"], records: records)
    }

    static func options(threads: Int?, runs: (count: Int, lastFirst: Bool)?, cache: URL? = nil) -> ReverseGeocoder.Options {
        var o = ReverseGeocoder.Options(cacheDirectory: cache)
        o.buildThreads = threads
        o.recordRuns = runs
        return o
    }

    /// The error a load of `shp` throws with these options.
    static func loadError(_ shp: URL, threads: Int?, runs: (count: Int, lastFirst: Bool)?) -> GeocoderError? {
        do {
            _ = try ReverseGeocoder(manifests: [(TestShapefile.manifest("t", file: shp), nil)], options: options(threads: threads, runs: runs))
            return nil
        } catch {
            return error as? GeocoderError
        }
    }

    @Test func theFirstBadRecordInRecordOrderIsNamedWhicheverRunMeetsOneFirst() throws {
        // Two bad records in each half, of two kinds (a .dbf text and a .shp vertex), so that an error from
        // the wrong record is told apart by its file as well as its number.
        let shp = Self.layer(name: #function, badText: [40, 170], badVertex: [60, 120])
        let expected = GeocoderError.undecodableText(file: "units.dbf", record: 40, field: "NAME", encoding: "UTF-8")
        // One worker, one run: the record-by-record read.
        #expect(Self.loadError(shp, threads: 1, runs: nil) == expected)
        // Two runs (records 0-99 and 100-199) and seven (the bad records in runs 1, 2, 4 and 5), handed out
        // last first: the run holding record 170 or 120 fails before the one holding record 40 is read. One
        // worker and two: the second worker only when the machine has a second idle core.
        for runs in [2, 7] {
            for threads in [1, 2] {
                #expect(Self.loadError(shp, threads: threads, runs: (runs, true)) == expected, "\(runs) runs last first, \(threads) workers")
                #expect(Self.loadError(shp, threads: threads, runs: (runs, false)) == expected, "\(runs) runs in order, \(threads) workers")
            }
        }

        // Only a vertex error left in the first half: it comes first, though the second half fails on text first.
        let second = Self.layer(name: #function + "2", badText: [110, 170], badVertex: [60, 120])
        let vertex = try #require(Self.loadError(second, threads: 1, runs: nil))
        guard case .corrupt(file: "units.shp", record: 60, reason: _) = vertex else {
            Issue.record("one worker: \(vertex)")
            return
        }
        for runs in [2, 7] {
            #expect(Self.loadError(second, threads: 2, runs: (runs, true)) == vertex, "\(runs) runs last first")
        }
    }

    @Test func runsWriteTheSameCacheAsOneWorker() throws {
        // Records the loader counts apart: NULL shapes, a degenerate ring, a bow-tie GEOS repairs, a hole,
        // spread over the runs.
        var records: [R] = []
        for r in 0..<300 {
            let x = Double(r % 30), y = Double(r / 30)
            switch r % 37 {
            case 3: records.append(R(rings: nil, ["NAME": "null \(r)", "CODE": "\(r)"]))
            case 11: records.append(R(rings: [[(x, y), (x, y + 1), (x, y)]], ["NAME": "flat \(r)", "CODE": "\(r)"]))
            case 19: records.append(R(rings: [[(x, y), (x, y + 1), (x + 1, y), (x + 1, y + 1), (x, y)]], ["NAME": "tie \(r)", "CODE": "\(r)"]))
            case 29: records.append(R(rings: [TestShapefile.box(x, y, x + 1, y + 1), TestShapefile.boxCCW(x + 0.25, y + 0.25, x + 0.75, y + 0.75)],
                                      ["NAME": "ring \(r)", "CODE": "\(r)"]))
            default: records.append(R(rings: [TestShapefile.box(x, y, x + 1, y + 1)], ["NAME": "unit \(r)", "CODE": "\(r)"]))
            }
        }
        let dir = TestShapefile.directory(#function)
        let shp = TestShapefile.write(dir.appendingPathComponent("units"), fields: ["NAME", "CODE"], records: records)
        let manifest = TestShapefile.manifest("t", file: shp)
        var files: [Data] = [], layers: [LayerInfo] = []
        // One worker record by record (the oracle); two with runs in and out of order; every record a run.
        let reads: [(threads: Int, runs: (count: Int, lastFirst: Bool)?)] = [(1, nil), (2, (7, true)), (2, (4, false)), (1, (300, true))]
        for (k, (threads, runs)) in reads.enumerated() {
            let cache = dir.appendingPathComponent("cache-\(k)")
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options(threads: threads, runs: runs, cache: cache))
            files.append(try Data(contentsOf: URL(fileURLWithPath: try #require(g.datasets[0].cacheFile))))
            layers.append(g.datasets[0].layers[0])
        }
        let one = layers[0]
        // The counts are the test's own, so that "the same" is not the same mistake.
        #expect(one.records == 300 && one.nullShapes == 9 && one.emptyRecords == 8 && one.repairedPolygons == 8)
        #expect(one.units == 300 - 9 - 8)
        for k in 1..<files.count {
            #expect(layers[k] == one, "read \(k)")
            #expect(files[k] == files[0], "cache of read \(k): \(files[k].count) bytes against \(files[0].count)")
        }
    }

    @Test func oneWorkerReadsOneRunAndRunsCoverEveryRecordInOrder() {
        #expect(DatasetLoader.recordRuns(34_000, workers: 1) == [0..<34_000])
        #expect(DatasetLoader.recordRuns(0, workers: 2) == [0..<0])
        #expect(DatasetLoader.recordRuns(100, workers: 2) == [0..<100], "too few records to share")
        for (records, workers) in [(34_435, 2), (2_000, 2), (131, 2), (5_000, 3)] {
            let runs = DatasetLoader.recordRuns(records, workers: workers)
            #expect(runs.count > 1 && runs.count <= 8 * workers)
            #expect(runs.first?.lowerBound == 0 && runs.last?.upperBound == records)
            #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && !$0.isEmpty })
        }
    }
}
