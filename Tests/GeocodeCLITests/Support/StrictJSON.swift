import Foundation
import Testing

/// Python's `json` as a strict outside reader: `object_pairs_hook` refuses any object that gives a key
/// twice (which JavaScript and Python otherwise read by its last value, and other readers by the first).
/// It returns each output row in order, as Python read it, with its keys in written order.
enum StrictJSON {
    /// One row: a record of NDJSON, or a Feature's properties (with `point` its coordinates).
    struct Row {
        var keys: [String]
        var values: [String: Any]
        var point: [Double]?
        /// Each value as Python writes it back (`json.dumps`): its JSON type and value in one string
        /// (`7`, `"7"`, `null`, `9007199254740993`), which Foundation's types would blur.
        var valueJSON: [String: String] = [:]
        /// A Feature's own `id` as Python writes it back; nil when the Feature has no `id` member.
        var featureID: String?
    }

    private static let script = """
        import json, sys
        def strict(pairs):
            keys = [k for k, _ in pairs]
            twice = sorted({k for k in keys if keys.count(k) > 1})
            if twice:
                raise ValueError("key given twice: %s in %s" % (twice, keys))
            return dict(pairs)
        text = sys.stdin.read()
        if sys.argv[1] == "geojson":
            doc = json.loads(text, object_pairs_hook=strict)
            records = doc["features"] if doc.get("type") == "FeatureCollection" else [doc]
        else:
            records = [json.loads(line.lstrip("\\x1e"), object_pairs_hook=strict)
                       for line in text.split("\\n") if line.strip("\\x1e \\t\\r")]
        rows = []
        for r in records:
            if r.get("type") == "Feature":
                props = r.get("properties") or {}
                geometry = r.get("geometry") or {}
                rows.append({"keys": list(props), "values": props, "point": geometry.get("coordinates"),
                             "json": {k: json.dumps(v) for k, v in props.items()},
                             "id": json.dumps(r["id"]) if "id" in r else None})
            else:
                rows.append({"keys": list(r), "values": r, "point": None,
                             "json": {k: json.dumps(v) for k, v in r.items()}, "id": None})
        print(json.dumps(rows))
        """

    /// `python3` on the PATH.
    static let python: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The rows of `output` (NDJSON or GeoJSON sequence lines: `lines`; a GeoJSON document: `geojson`);
    /// a failed test naming the key when an object repeats one.
    static func rows(_ output: Data, layout: String) async throws -> [Row] {
        let python = try #require(python, "this test needs python3 on the PATH (the strict JSON reader)")
        let input = try TemporaryDirectory.shared.newFile("strict")
        try output.write(to: input)
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script, layout]
        let result = try await GeocodeBinary.capture(process, stdin: try FileHandle(forReadingFrom: input))
        try #require(result.status == 0, "python's strict reader refused the output: \(result.err)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        return try parsed.map { row in
            Row(keys: try #require(row["keys"] as? [String]), values: try #require(row["values"] as? [String: Any]),
                point: (row["point"] as? [NSNumber])?.map(\.doubleValue),
                valueJSON: try #require(row["json"] as? [String: String]), featureID: row["id"] as? String)
        }
    }
}
