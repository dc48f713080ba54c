import Foundation
import ReverseGeocoder

/// The fields of the table (``PlacemarkField``) a dataset fills with its own values, read from its
/// manifest: what `geocode fields --data DIR` lists per dataset.
///
/// Only the fields a manifest maps are counted: a level's name and code where a layer names the DBF
/// field of it (or `constants` gives it, as China's country), and an overlay's fields by key. The
/// fields every answer derives whatever the data (`name`, `dataset`, each level's `…Source`) and those
/// a query measures (`…Distance`) are not the data's, so they are left out rather than claimed.
enum DatasetColumns {
    /// The fields `manifest` fills, in table order.
    static func fields(of manifest: DatasetManifest) -> [PlacemarkField] {
        var filled = Set<PlacemarkField>()
        for layer in manifest.layers {
            for (key, fields) in layer.fields {
                if manifest.role == .overlay {
                    if let field = PlacemarkField(key: key) { filled.insert(field) }
                } else if let level = AdminLevel(rawValue: key) {
                    if fields.name != nil { filled.insert(.level(level, .name)) }
                    if fields.code != nil { filled.insert(.level(level, .code)) }
                }
            }
        }
        for (key, unit) in manifest.constants ?? [:] {
            guard let level = AdminLevel(rawValue: key) else { continue }
            if unit.name != nil { filled.insert(.level(level, .name)) }
            if unit.code != nil { filled.insert(.level(level, .code)) }
        }
        return PlacemarkField.allCases.filter(filled.contains)
    }

    /// The manifest a loaded dataset was read from (`DatasetInfo.directory`), read again: the engine keeps
    /// its load statistics, not the manifest. A dataset built in code (no directory) has none.
    static func manifest(of dataset: DatasetInfo) throws(CLIError) -> DatasetManifest? {
        guard let directory = dataset.directory else { return nil }
        let file = URL(fileURLWithPath: directory).appendingPathComponent("manifest.json")
        do {
            return try DatasetManifest.load(from: file)
        } catch {
            // The engine's errors name the file already (`…/manifest.json: cannot open: …`).
            throw CLIError(.dataUnavailable, "\(error)")
        }
    }
}
