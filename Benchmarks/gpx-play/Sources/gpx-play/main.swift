import Foundation
import LocationSources

// gpx-play FILE: plays FILE as fast as possible; prints the fixes played, the first and the last.
// gpx-play --read FILE: only reads it (GPXParser.read), to tell parsing time from playback time.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1 || (arguments.count == 2 && arguments[0] == "--read") else {
    FileHandle.standardError.write(Data("usage: gpx-play [--read] FILE.gpx\n".utf8))
    exit(2)
}
let url = URL(fileURLWithPath: arguments.last!)
if arguments.count == 2 {
    do {
        let counts = try GPXParser.read(contentsOf: url) { _ in true }
        print("read \(counts.trackPoints) trkpt, \(counts.routePoints) rtept, \(counts.waypoints) wpt")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("gpx-play: \(error)\n".utf8))
        exit(1)
    }
}
let source = GPXPlaybackSource(contentsOf: url, configuration: .init(pacing: .asFastAsPossible))
var played = 0
var first: Location?
var last: Location?
var failed = false
for await event in source.events() {
    switch event {
    case .location(let location):
        if first == nil { first = location }
        last = location
        played += 1
    case .error(let error):
        FileHandle.standardError.write(Data("gpx-play: \(error)\n".utf8))
        failed = true
    }
}
func describe(_ l: Location?) -> String {
    guard let l else { return "none" }
    return String(format: "%.7f,%.7f", l.coordinate.latitude, l.coordinate.longitude) + " \(l.timestamp)"
}
print("played \(played)")
print("first \(describe(first))")
print("last \(describe(last))")
exit(failed ? 1 : 0)
