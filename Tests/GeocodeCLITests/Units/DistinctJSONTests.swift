import Foundation
@testable import GeocodeCLI
import Testing

/// ``DistinctJSON``: values nested in a record, whose objects give a key more than once, written with
/// each key once (where it first stood, with its last value) at any depth, and the paths of the keys
/// they repeat. The oracle is Python's `json.loads`, which rebuilds every object so (a dict keeps a
/// key's first place and its last value): our output, read by a strict reader that refuses a repeated
/// key, must be what Python reads from the input; the paths must be the ones a walk over Python's
/// `object_pairs_hook` finds. Also: the scanner's test (``JSONScanner/nestedKeyMayRepeat``) is true
/// exactly for the records that repeat a nested key (or have a key with an escape), and clean values
/// come out as ``JSONWriter/appendMinified(_:_:to:)`` writes them.
@Suite struct DistinctJSONTests {
    /// Keys that the quick test may confuse (same length and outer bytes), escapes spelling another key.
    static let keys = [#""a""#, #""b""#, #""ab""#, #""ba""#, #""lat""#, #""lot""#, #""\u0061""#, #""""#, #""x.y""#, #""é""#]

    /// Records `{"k":V,…}` whose values nest objects (now and then of five or six keys: more than the scanner keeps to
    /// compare, ``JSONScanner/nestedKeyMayRepeat``) and arrays up to three deep (a fixed generator).
    static func records(_ count: Int) -> [String] {
        var state: UInt64 = 0xD15_71C7
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        func value(_ depth: Int) -> String {
            switch depth < 3 ? next(6) : next(3) {
            case 0: return "\(next(100))"
            case 1: return "\"s\(next(10))\""
            case 2: return ["null", "true", "-1.50e3"][next(3)]
            case 3: return "[" + (0..<next(4)).map { _ in value(depth + 1) }.joined(separator: ", ") + "]"
            default: return object(depth + 1)
            }
        }
        func object(_ depth: Int) -> String {
            "{" + (0..<(next(4) == 0 ? 5 + next(2) : next(5))).map { _ in "\(keys[next(keys.count)]) : \(value(depth))" }.joined(separator: ",") + "}"
        }
        // The record's own keys are distinct (the top level is DistinctMembers'), its values anything.
        return (0..<count).map { i in "{\"id\":\(i),\"p\":\(object(1)),\"q\":[\(value(1)),\(object(1))]}" }
    }

    /// Our reading of each record: its values written by DistinctJSON, the paths, and the quick test.
    struct Ours: Codable {
        var output: String
        var paths: [String]
        var mayRepeat: Bool
        var plain: String
    }

    static func ours(_ record: String) throws -> Ours {
        let bytes = Array(record.utf8)
        return try bytes.withUnsafeBufferPointer { b in
            var scanner = JSONScanner(b)
            scanner.nestedKeyCheckDepth = 1
            let members = try scanner.objectMembers()
            var paths: [String] = []
            DistinctJSON.repeatedPaths(in: members, at: "", b, into: &paths)
            var output: [UInt8] = [], plain: [UInt8] = []
            DistinctJSON.appendMinified(b, 0..<b.count, kind: .object, to: &output)
            JSONWriter.appendMinified(b, 0..<b.count, to: &plain)
            return Ours(output: String(decoding: output, as: UTF8.self), paths: paths, mayRepeat: scanner.nestedKeyMayRepeat,
                        plain: String(decoding: plain, as: UTF8.self))
        }
    }

    @Test func eachNestedKeyOnceAsPythonReadsTheRecord() async throws {
        let python = try #require(StrictJSON.python, "this test needs python3 on the PATH")
        let records = Self.records(3000)
        let ours = try records.map(Self.ours)
        let input = try TemporaryDirectory.shared.newFile("nested", extension: "ndjson")
        try JSONEncoder().encode(zip(records, ours).map { [$0, $1.output] }).write(to: input)
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", """
            import json, sys
            def strict(pairs):
                keys = [k for k, _ in pairs]
                assert len(set(keys)) == len(keys), "key given twice: %s" % keys
                return dict(pairs)
            class Obj(list): pass
            def paths(v, at):
                if isinstance(v, Obj):
                    keys = [k for k, _ in v]
                    # Named where a key comes the second time, as the warning lists them.
                    out = [at + "." + k if at else k for i, k in enumerate(keys) if keys[:i].count(k) == 1]
                    for k, x in dict(v).items(): out += paths(x, at + "." + k if at else k)
                    return out
                if isinstance(v, list):
                    return [p for i, x in enumerate(v) for p in paths(x, "%s[%d]" % (at, i))]
                return []
            answer = []
            for record, output in json.load(sys.stdin):
                read = json.dumps(json.loads(record), separators=(",", ":"))
                written = json.dumps(json.loads(output, object_pairs_hook=strict), separators=(",", ":"))
                answer.append([read == written, paths(json.loads(record, object_pairs_hook=Obj), "")])
            print(json.dumps(answer))
            """]
        let result = try await GeocodeBinary.capture(process, stdin: try FileHandle(forReadingFrom: input))
        try #require(result.status == 0, "\(result.err)")
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[Any]])
        try #require(answer.count == records.count)
        var repeating = 0
        for ((record, ours), python) in zip(zip(records, ours), answer) {
            #expect(python[0] as? Bool == true, "\(record) → \(ours.output)")
            let expected = try #require(python[1] as? [String])
            #expect(ours.paths == expected, "\(record)")
            if !expected.isEmpty {
                repeating += 1
                #expect(ours.mayRepeat, "the quick test missed a repeat: \(record)")
            } else {
                // Nothing to do: written byte for byte as the plain writer writes it, and (keys on one
                // bit compared exactly) not walked at all unless a key has an escape.
                #expect(ours.output == ours.plain, "\(record)")
                #expect(!ours.mayRepeat || record.contains("\\"), "a clean record sent to the walk: \(record)")
            }
        }
        #expect(repeating > 500 && repeating < records.count - 500, "the generator repeats keys in some records: \(repeating)")
    }

    @Test func pathsNameArraysAndDepth() throws {
        let ours = try Self.ours(#"{"props":{"x":{"a":1,"a":2},"l":[{"b":1},{"b":1,"b":[{"c":0,"c":{"d":1,"d":2}}]}]}}"#)
        #expect(ours.paths == ["props.x.a", "props.l[1].b", "props.l[1].b[0].c", "props.l[1].b[0].c.d"])
        #expect(ours.output == #"{"props":{"x":{"a":2},"l":[{"b":1},{"b":[{"c":{"d":2}}]}]}}"#)
        #expect(try Self.ours(#"{"p":{"ab":1,"ba":2,"lat":3,"lot":4},"q":[{"a":1},{"a":2}]}"#).paths.isEmpty)
        // A repeat the scanner's kept keys do not hold (the first "a" is the fifth key): read again.
        let late = try Self.ours(#"{"p":{"b":1,"c":2,"d":3,"e":4,"a":5,"f":6,"a":7}}"#)
        #expect(late.mayRepeat && late.paths == ["p.a"] && late.output == #"{"p":{"b":1,"c":2,"d":3,"e":4,"a":7,"f":6}}"#)
        let clean = try Self.ours(#"{"p":{"b":1,"c":2,"d":3,"e":4,"a":5,"f":6,"g":7,"h":8,"i":9,"j":10}}"#)
        #expect(!clean.mayRepeat && clean.paths.isEmpty)
    }
}
