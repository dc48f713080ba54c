import CGEOS
import Foundation
import ReverseGeocoder
import Synchronization

/// Our engine on one dataset: load (index build) time, a first pass with cold per-thread caches,
/// single-thread and all-threads throughput over the same points, per-query latency, peak RSS.
struct OursBenchmark {
    let manifestURL: URL
    let datum: Datum
    let pointsPath: String
    let answersPath: String?
    let countriesPath: String?
    /// --answers-full PATH: every answer whole (its fields and each level's provenance, distances to the
    /// last digit), one line per point, to compare two builds' answers (Benchmarks/results/coast-speed.md).
    let fullPath: String?
    let threads: Int
    let passes: Int
    /// Walks over the points per timed pass (the times recorded are per walk).
    let rounds: Int
    let latencySamples: Int
    /// --latency-out PATH: each timed single query's latency (ns, little-endian UInt64, in point order), to
    /// see which kinds of points make the median (Benchmarks/results/placemark-speed.md, session 11).
    let latencyPath: String?
    let options: ReverseGeocoder.Options
    /// --load-only yes: load (building or reading the index cache), print the load time, stop.
    let loadOnly: Bool
    /// --overlay MANIFEST (repeatable as a comma list): overlay datasets (time zones) loaded beside the
    /// manifest, so the timed queries are full placemarks.
    let overlayURLs: [URL]

    init(_ o: Options) throws {
        manifestURL = URL(fileURLWithPath: try o.string("manifest"))
        guard let d = Datum(name: try o.string("datum")) else { throw UsageError("unknown datum") }
        datum = d
        pointsPath = try o.string("points")
        answersPath = o.optional("answers")
        countriesPath = o.optional("answers-country")
        fullPath = o.optional("answers-full")
        threads = try o.int("threads", default: ProcessInfo.processInfo.activeProcessorCount)
        passes = max(1, try o.int("passes", default: 3))
        rounds = max(1, try o.int("rounds", default: 1))
        latencySamples = try o.int("latency", default: 100_000)
        latencyPath = o.optional("latency-out")
        // The engine's index options: its defaults unless --cell-size SIZE|off says otherwise.
        var options = ReverseGeocoder.Options()
        if let text = o.optional("cell-size") {
            if text == "off" {
                options.cellSize = nil
            } else if let size = Double(text), size > 0 {
                options.cellSize = size
            } else {
                throw UsageError("--cell-size takes degrees or off, not \(text)")
            }
        }
        // --cache DIR: load through the index cache in DIR (built and written there on first use).
        if let dir = o.optional("cache") { options.cacheDirectory = URL(fileURLWithPath: dir) }
        // --max-distance METRES: the coast fallback's reach. Default 0 (off), unlike the engine's 10 km:
        // every peer here answers containment, and with the fallback on each point outside the polygons
        // (two thirds of the uniform points) pays a nearest-unit search and answers a unit the peers,
        // rightly, do not (the growth table of 2026-12-01 first showed 16 µs a point and 2,568 "wrong"
        // answers that way). The fallback's own cost and answers: Benchmarks/coast/.
        options.maxDistance = 0
        if let text = o.optional("max-distance") {
            guard let m = Double(text), m >= 0 else { throw UsageError("--max-distance takes metres >= 0, not \(text)") }
            options.maxDistance = m
        }
        // --lang TAG[,TAG...]: the preferred languages of every answer's names (the CLI's --lang).
        if let text = o.optional("lang") { options.preferredLanguages = text.split(separator: ",").map(String.init) }
        self.options = options
        loadOnly = o.optional("load-only") == "yes"
        overlayURLs = (o.optional("overlay") ?? "").split(separator: ",").map { URL(fileURLWithPath: String($0)) }
    }

    func run() throws {
        let rssStart = currentRSSBytes()
        let manifest = try DatasetManifest.load(from: manifestURL)
        let t0 = nowNanos()
        let overlays = try overlayURLs.map { (manifest: try DatasetManifest.load(from: $0), directory: Optional($0.deletingLastPathComponent())) }
        let geocoder = try ReverseGeocoder(manifests: [(manifest: manifest, directory: manifestURL.deletingLastPathComponent())] + overlays,
                                           options: options)
        let loadWall = Double(nowNanos() - t0) / 1e9
        // The aids the engine builds in the background after the load (the far-from-every-unit mask),
        // ready before the timed passes so that every pass measures the same query path.
        let tr = nowNanos()
        geocoder.waitUntilReady()
        let readyWall = Double(nowNanos() - tr) / 1e9
        let rssAfterLoad = currentRSSBytes()
        log("loaded \(manifest.name) in \(String(format: "%.3f", loadWall)) s (\(geocoder.datasets.first?.cacheStatus ?? "no cache"))")
        if loadOnly {
            try printJSON(["engine": "ours-load", "cache": geocoder.datasets.first?.cacheStatus ?? "off", "load_wall_s": loadWall,
                           "load_s": seconds(geocoder.loadTime),
                           "peak_rss": peakRSSBytes()])
            return
        }

        let (xs, ys) = try readPoints(pointsPath)
        let n = xs.count
        let datum = self.datum
        // The level whose code identifies the unit: the finest layer's.
        let level: AdminLevel = manifest.layers.compactMap(\.level).max() ?? .country

        // 1. First pass, one thread, cold: every polygon touched is prepared on first use.
        var found = 0
        var t = nowNanos()
        for i in 0..<n where try! geocoder.placemark(for: Coordinate(latitude: ys[i], longitude: xs[i]), datum: datum) != nil {
            found += 1
        }
        let firstPass = Double(nowNanos() - t) / 1e9
        log("first pass \(String(format: "%.3f", firstPass)) s, \(found) of \(n) points answered")

        // 2. Answers (untimed): the unit's code at the finest level; the suite's manifest makes it the record number.
        if let answersPath {
            var answers = [Int32](repeating: -1, count: n)
            for i in 0..<n {
                if let p = try! geocoder.placemark(for: Coordinate(latitude: ys[i], longitude: xs[i]), datum: datum) {
                    answers[i] = p.code(at: level).flatMap { Int32($0) } ?? -2
                }
            }
            try writeAnswers(answers, to: answersPath)
        }

        // ...and the country code of every answer, one line per point ("" for none), to compare approximate tools.
        if let countriesPath {
            var lines: [String] = []
            lines.reserveCapacity(n)
            for i in 0..<n {
                lines.append(try! geocoder.placemark(for: Coordinate(latitude: ys[i], longitude: xs[i]), datum: datum)?.isoCountryCode ?? "")
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: countriesPath, atomically: true, encoding: .utf8)
        }

        if let fullPath {
            var lines: [String] = []
            lines.reserveCapacity(n)
            for i in 0..<n {
                guard let p = try! geocoder.placemark(for: Coordinate(latitude: ys[i], longitude: xs[i]), datum: datum) else {
                    lines.append("")
                    continue
                }
                let provenance = AdminLevel.allCases.map { p.provenance(at: $0).map { "\($0)" } ?? "-" }
                lines.append("\(p) | \(provenance.joined(separator: " "))")
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: fullPath, atomically: true, encoding: .utf8)
        }

        // 3 and 4. Single thread and all threads, warm, pass by pass in turn, so that a slow spell of the
        // (shared) host weighs on both and not on the scaling between them. All threads: chunks of points
        // handed out as workers ask, persistent workers; one warm-up pass prepares each worker's cache.
        // A timed pass walks the points `rounds` times: on this VM a worker sometimes wakes 2-3 ms late,
        // a tenth of a 25 ms pass but nothing beside the peers' passes of a second or more.
        let pool = WorkerPool(threads: threads)
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads * 8)  // padded against false sharing
        defer { counts.deallocate() }
        let shared = SharedPoints(xs: xs, ys: ys, geocoder: geocoder, counts: counts, threads: threads, datum: datum)
        shared.reset(rounds: 1)
        let warm = Double(pool.run { shared.slice($0) }.wall) / 1e9
        let walks = Double(rounds)
        var single: [Double] = [], singleCPU: [Double] = []
        var multi: [Double] = [], multiCPU: [Double] = []
        for _ in 0..<passes {
            var hits = 0
            let c = processCPUNanos()
            t = nowNanos()
            for _ in 0..<rounds {
                for i in 0..<n where try! geocoder.placemark(for: Coordinate(latitude: ys[i], longitude: xs[i]), datum: datum) != nil {
                    hits += 1
                }
            }
            single.append(Double(nowNanos() - t) / 1e9 / walks)
            singleCPU.append(Double(processCPUNanos() - c) / 1e9 / walks)
            precondition(hits == found * rounds, "answers changed between passes")

            shared.reset(rounds: rounds)
            let (wall, cpu) = pool.run { shared.slice($0) }
            multi.append(Double(wall) / 1e9 / walks)
            multiCPU.append(Double(cpu) / 1e9 / walks)
            precondition(shared.total == found * rounds, "multi-thread answers differ")
        }
        log("single thread: \(single.map { String(format: "%.3f", $0) }) s")
        log("\(threads) threads: warm-up \(String(format: "%.3f", warm)) s, passes \(multi.map { String(format: "%.3f", $0) }) s")

        // 5. Latency of single queries (one thread, warm), each timed on its own.
        let m = min(n, latencySamples)
        var lat = [UInt64](repeating: 0, count: m)
        for i in 0..<m {
            let c = Coordinate(latitude: ys[i], longitude: xs[i])
            let a = nowNanos()
            _ = try! geocoder.placemark(for: c, datum: datum)
            lat[i] = nowNanos() - a
        }
        if let latencyPath {
            try lat.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: latencyPath))
        }
        lat.sort()
        var overhead = [UInt64](repeating: 0, count: 10_000)
        for i in overhead.indices { let a = nowNanos(); overhead[i] = nowNanos() - a }
        overhead.sort()
        func pct(_ p: Double) -> UInt64 { m == 0 ? 0 : lat[min(m - 1, Int(Double(m) * p))] }

        let medSingle = median(single), medMulti = median(multi)
        let info = geocoder.datasets.first!
        try printJSON([
            "engine": "ours",
            "geos": String(cString: GEOSversion()),
            "dataset": info.name,
            "datum": datum.rawValue,
            "cell_size": options.cellSize.map { $0 as Any } ?? "off",
            "layers": info.layers.map { l in
                ["file": l.file, "level": l.level?.rawValue ?? "overlay", "records": l.records, "units": l.units, "polygons": l.polygons,
                 "vertices": l.vertices, "repaired": l.repairedPolygons, "antimeridian": l.antimeridianRecords,
                 "windingCorrected": l.windingCorrected, "warnings": l.warnings] as [String: Any]
            },
            "points": n,
            "rounds": rounds,
            "found": found,
            "cache": geocoder.datasets.first?.cacheStatus ?? "off",
            "load_s": seconds(geocoder.loadTime),
            "load_wall_s": loadWall,
            "ready_wall_s": readyWall,
            "rss_before_load": rssStart,
            "rss_after_load": rssAfterLoad,
            "first_pass_s": firstPass,
            "single_passes_s": single,
            "single_pps": Double(n) / medSingle,
            "single_ns": medSingle * 1e9 / Double(n),
            "single_cpu_passes_s": singleCPU,
            "single_cpu_ns": median(singleCPU) * 1e9 / Double(n),
            "threads": threads,
            "multi_warmup_s": warm,
            "multi_passes_s": multi,
            "multi_pps": Double(n) / medMulti,
            "multi_ns": medMulti * 1e9 / Double(n),
            "multi_cpu_passes_s": multiCPU,
            "multi_cpu_ns": median(multiCPU) * 1e9 / Double(n),
            "latency_samples": m,
            "latency_p50_ns": pct(0.50),
            "latency_p90_ns": pct(0.90),
            "latency_p99_ns": pct(0.99),
            "latency_p999_ns": pct(0.999),
            "latency_max_ns": lat.last ?? 0,
            "clock_overhead_ns": overhead[overhead.count / 2],
            "peak_rss": peakRSSBytes(),
        ])
    }
}

/// What the workers read (immutable) and where they count their hits (one padded slot each).
final class SharedPoints: @unchecked Sendable {
    // @unchecked: the arrays and geocoder are never mutated after init; each worker writes only its own
    // `counts` slot, read by the main thread after WorkerPool.run returned (ordered by its semaphores).
    let xs: [Double], ys: [Double]
    let geocoder: ReverseGeocoder
    let counts: UnsafeMutableBufferPointer<Int>
    let threads: Int
    let datum: Datum
    /// The next chunk of points to hand out. Workers take chunks as they go, like a server's work queue,
    /// so a worker the host pauses for a moment does not hold up the pass with a fixed half of the points.
    private let next = Atomic<Int>(0)
    private static let chunk = 4096

    init(xs: [Double], ys: [Double], geocoder: ReverseGeocoder, counts: UnsafeMutableBufferPointer<Int>, threads: Int, datum: Datum) {
        self.xs = xs; self.ys = ys; self.geocoder = geocoder; self.counts = counts; self.threads = threads; self.datum = datum
    }

    /// Walks over the points in the coming pass.
    nonisolated(unsafe) private var rounds = 1

    /// Before each pass (while the workers wait).
    func reset(rounds: Int) {
        self.rounds = rounds
        next.store(0, ordering: .relaxed)
    }

    func slice(_ worker: Int) {
        let n = xs.count, total = n * rounds
        var hits = 0
        while true {
            let lo = next.wrappingAdd(Self.chunk, ordering: .relaxed).oldValue
            if lo >= total { break }
            var i = lo % n
            for _ in lo..<min(total, lo + Self.chunk) {
                if try! geocoder.placemark(for: Coordinate(latitude: ys[i], longitude: xs[i]), datum: datum) != nil { hits += 1 }
                i += 1
                if i == n { i = 0 }
            }
        }
        counts[worker * 8] = hits
    }

    var total: Int { (0..<threads).reduce(0) { $0 + counts[$1 * 8] } }
}

/// A duration in seconds.
private func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}
