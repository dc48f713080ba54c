import Foundation
@testable import GeocodeCLI
import Testing

/// ``DistinctMembers``: an object's members with each key once, where it first stood, with its last
/// value. The oracle is Python's `json.loads` (a dict keeps a key's first place and its last value),
/// over objects made to repeat keys in every way the quick test could miss: keys of one length and
/// outer bytes (`ab`/`ba`, `lat`/`lot`), escapes that spell another key (`\u0061` is `a`), the empty key.
@Suite struct DistinctMembersTests {
    static let keys = [#""a""#, #""b""#, #""ab""#, #""ba""#, #""lat""#, #""lot""#, #""lon""#, #""\u0061""#, #""""#,
                       #""x\"y""#, #""é""#, #""\u00e9""#, #""id""#, #""Id""#]

    /// Objects of 1 to 8 members, keys drawn from ``keys`` (a fixed generator: the same objects every run).
    static func objects(_ count: Int) -> [String] {
        var state: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        return (0..<count).map { i in
            let members = (0...next(8)).map { j in "\(keys[next(keys.count)]):\(i * 10 + j)" }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    /// `[[key, value text]]` per object, keys decoded: ours, and Python's.
    static func ours(_ object: String) throws -> (pairs: [[String]], repeated: [String]) {
        let bytes = Array(object.utf8)
        return try bytes.withUnsafeBufferPointer { b in
            var scanner = JSONScanner(b)
            let members = try scanner.objectMembers()
            let distinct = members.withoutRepeatedKeys(in: b)
            let pairs = (distinct?.members ?? members).map {
                [String(decoding: JSONScanner.decodeString(b, $0.key), as: UTF8.self), String(decoding: Array(b[$0.value]), as: UTF8.self)]
            }
            return (pairs, distinct?.repeatedKeys ?? [])
        }
    }

    @Test func eachKeyOnceAsPythonReadsTheObject() async throws {
        let python = try #require(StrictJSON.python, "this test needs python3 on the PATH")
        let objects = Self.objects(2000)
        let input = try TemporaryDirectory.shared.newFile("objects", extension: "ndjson")
        try Data((objects.joined(separator: "\n") + "\n").utf8).write(to: input)
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", """
            import json, sys
            print(json.dumps([[[k, json.dumps(v)] for k, v in json.loads(line).items()] for line in sys.stdin]))
            """]
        let result = try await GeocodeBinary.capture(process, stdin: try FileHandle(forReadingFrom: input))
        try #require(result.status == 0, "\(result.err)")
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[[String]]])
        try #require(answer.count == objects.count)
        var repeatedObjects = 0
        for (object, expected) in zip(objects, answer) {
            let (pairs, repeated) = try Self.ours(object)
            #expect(pairs == expected, "\(object)")
            // Keys are named exactly when Python's dict has fewer keys than the object has members.
            if !repeated.isEmpty { repeatedObjects += 1 }
            #expect(repeated.isEmpty == (expected.count == object.filter { $0 == ":" }.count), "\(object)")
        }
        #expect(repeatedObjects > 500, "the generator repeats keys often enough to test something")
    }

    @Test func namesEachRepeatedKeyOnceInFirstOrder() throws {
        let (pairs, repeated) = try Self.ours(#"{"b":1,"a":2,"b":3,"\u0061":4,"b":5,"c":6}"#)
        #expect(pairs == [["b", "5"], ["a", "4"], ["c", "6"]])
        #expect(repeated == ["b", "a"])
        #expect(try Self.ours(#"{"ab":1,"ba":2,"lat":3,"lot":4}"#).repeated.isEmpty)
    }
}
