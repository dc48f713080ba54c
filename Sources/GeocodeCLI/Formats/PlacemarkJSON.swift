import Foundation
import GeoModel

/// A placemark as the CLI writes it in JSON (`geocode --json`, `geocode track --json`): one member per
/// field of the table, under the library's key (``PlacemarkField/key``), every key present, null when
/// empty. The same keys, in the same order, as the library's `JSONEncoder` output of the placemark.
enum PlacemarkJSON {
    /// Appends the object, or `null` for no placemark.
    static func append(_ placemark: Placemark?, to out: inout [UInt8]) {
        guard let placemark else {
            out.append(contentsOf: "null".utf8)
            return
        }
        out.append(UInt8(ascii: "{"))
        for (i, field) in PlacemarkField.allCases.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(field.key, to: &out)
            out.append(UInt8(ascii: ":"))
            field.appendJSON(of: placemark, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The object for `JSONSerialization` (NSNull for empty values and for no placemark).
    static func object(_ placemark: Placemark?) -> Any {
        guard let placemark else { return NSNull() }
        var o: [String: Any] = [:]
        for field in PlacemarkField.allCases {
            switch field.value(of: placemark) {
            case .text(let s): o[field.key] = s ?? NSNull()
            case .number(let d): o[field.key] = d ?? NSNull()
            case .flag(let b): o[field.key] = b
            }
        }
        return o
    }
}
