import Foundation
import GeoModel

/// The codes and names of some administrative areas, and a quick test of whether a unit of the data
/// has one of them: what ``KnownAdministrativeUnits/init(_:checking:)`` selects the catalog's units with.
///
/// A unit has a wanted name when ``AdministrativeArea/normalized(_:)`` of one of its names (the one the
/// dataset gives and those in other languages: 150 for a country) is a wanted name's. Normalizing every
/// name of every unit of the data was most of the cost of checking a regions file, so each name is
/// first compared by a key of its first letter that normalizing keeps: the first scalar of the
/// canonical decomposition (NFD) of the first scalar's lowercase mapping. `String.lowercased()` maps
/// scalar by scalar, and strings that compare equal (canonically equivalent) have the same NFD, whose
/// first scalar stays first when it is a starter; so a name whose key is no wanted name's key is not a
/// wanted name. Only the few others are normalized and compared. Where a key cannot be told (a name
/// starting with white space or a combining mark), the name is compared in full.
struct AreaKeyFilter {
    /// The wanted codes, compared exactly.
    let codes: Set<String>
    private let names: Set<String>
    /// The wanted names' keys below 128, one bit each.
    private let asciiKeys: (low: UInt64, high: UInt64)
    /// The other wanted names' keys.
    private let otherKeys: Set<UInt32>
    /// A wanted name has no key: every name is compared in full.
    private let comparesAll: Bool
    /// Key of each non-ASCII first scalar met so far (``noKey``: none); a few thousand at most.
    private var keys: [UInt32: UInt32] = [:]
    private static let noKey = UInt32.max
    /// Names normalized and compared in full so far (the rest were told apart by their key).
    private(set) var namesCompared = 0

    init(_ areas: some Sequence<AdministrativeArea>) {
        var codes = Set<String>(), names = Set<String>()
        for area in areas {
            switch area.key {
            case .code(let code): codes.insert(code)
            case .name(let name): names.insert(AdministrativeArea.normalized(name))
            }
        }
        var ascii: (low: UInt64, high: UInt64) = (0, 0), other = Set<UInt32>(), comparesAll = false
        for name in names {
            // The name is normalized already: its key is the first scalar of its NFD.
            guard let lead = name.decomposedStringWithCanonicalMapping.unicodeScalars.first,
                  lead.properties.canonicalCombiningClass == .notReordered else {
                comparesAll = true
                continue
            }
            Self.insert(lead.value, ascii: &ascii, other: &other)
        }
        self.codes = codes
        self.names = names
        asciiKeys = ascii
        otherKeys = other
        self.comparesAll = comparesAll
    }

    /// No code and no name wanted.
    var isEmpty: Bool { codes.isEmpty && names.isEmpty }

    /// Whether the unit has a wanted code, or a wanted name among its names (whatever its level).
    mutating func accepts(_ unit: Placemark.Unit) -> Bool {
        unit.has(codeIn: codes, orName: { hasName($0) })
    }

    /// Whether `name`, normalized, is a wanted name.
    mutating func hasName(_ name: String) -> Bool {
        if names.isEmpty { return false }
        if !comparesAll, let first = name.unicodeScalars.first, let key = key(first), !isWanted(key) { return false }
        namesCompared += 1
        return names.contains(AdministrativeArea.normalized(name))
    }

    private func isWanted(_ key: UInt32) -> Bool {
        if key < 64 { return asciiKeys.low & (1 << key) != 0 }
        if key < 128 { return asciiKeys.high & (1 << (key - 64)) != 0 }
        return otherKeys.contains(key)
    }

    /// The key of a name starting with `first`; `nil` when it cannot be told from that scalar alone.
    private mutating func key(_ first: Unicode.Scalar) -> UInt32? {
        let v = first.value
        if v < 128 {
            // White space is trimmed by normalizing: the next scalar would decide.
            if v == 0x20 || (0x09...0x0D).contains(v) { return nil }
            return (0x41...0x5A).contains(v) ? v + 0x20 : v
        }
        if let known = keys[v] { return known == Self.noKey ? nil : known }
        var key = Self.noKey
        if !first.properties.isWhitespace,
           let lead = String(first).lowercased().decomposedStringWithCanonicalMapping.unicodeScalars.first,
           lead.properties.canonicalCombiningClass == .notReordered {
            key = lead.value
        }
        keys[v] = key
        return key == Self.noKey ? nil : key
    }

    private static func insert(_ key: UInt32, ascii: inout (low: UInt64, high: UInt64), other: inout Set<UInt32>) {
        if key < 64 { ascii.low |= 1 << key } else if key < 128 { ascii.high |= 1 << (key - 64) } else { other.insert(key) }
    }
}
