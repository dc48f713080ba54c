// geocode-bench: the engine's side of the benchmark suite (see Benchmarks/README.md).
//
//   geocode-bench ours  --manifest M.json --points P.f64 --datum wgs84|gcj02 [--answers A.i32] [--answers-country C.txt]
//                       [--threads N] [--passes K] [--rounds R] [--latency N] [--cell-size DEGREES|off]
//                       [--overlay M2.json[,M3.json...]] [--lang TAG[,TAG...]] [--cache DIR]
//   geocode-bench brute --polygons G.wkb --points P.f64 [--limit N] [--answers A.i32]
//   geocode-bench cold-start --data DIR [--datum D] LAT LON
//   geocode-bench exact --manifest M.json --points P1.f64[,P2.f64...] --datum D
//
// `ours` and `brute` print one JSON object on stdout (the suite's orchestrator reads it); points files are
// little-endian float64 (x = longitude, y = latitude) pairs, answers files little-endian int32 per point
// (the record number of the containing unit, -1 for none). Progress goes to stderr.
import Foundation

do {
    var args = Array(CommandLine.arguments.dropFirst())
    guard let command = args.first else { throw UsageError("no command (ours, brute, cold-start, exact)") }
    args.removeFirst()
    let options = try Options(args)
    switch command {
    case "ours": try OursBenchmark(options).run()
    case "brute": try BruteForceBenchmark(options).run()
    case "cold-start", "--cold-start": try ColdStart(options).run()
    case "exact": try ExactnessCheck(options).run()
    default: throw UsageError("unknown command \(command)")
    }
} catch {
    FileHandle.standardError.write(Data("geocode-bench: \(error)\n".utf8))
    exit(2)
}
