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
///
/// A name the engine reads from its index cache comes as UTF-8 bytes (``hasName(utf8:)``): its first
/// scalar is decoded from them for the key, and an ASCII name that passes is compared as bytes, trimmed
/// of ASCII white space and its letters lowered (what normalizing does to ASCII; ``TextSet`` says why
/// bytes compare as Strings would): no String is made for most names.
struct AreaKeyFilter: UnitNameTest {
    /// The wanted codes, compared exactly.
    let codes: Set<String>
    /// The wanted names, normalized.
    private let names: TextSet
    /// The wanted names' keys below 128, one bit each.
    private let asciiKeys: (low: UInt64, high: UInt64)
    /// The other wanted names' keys.
    /// The other wanted names' keys: a few, searched in order (hashing one was 2 % of a `track --region`
    /// start, callgrind).
    private let otherKeys: [UInt32]
    /// A wanted name has no key: every name is compared in full.
    private let comparesAll: Bool
    /// Key of each non-ASCII first scalar met so far (``noKey``: none); a few thousand at most.
    private var keys: [UInt32: UInt32] = [:]
    /// The same, direct-mapped by the scalar's low bits (scalar in the high word, key in the low; 0: empty,
    /// no scalar here is ASCII): hashing the scalar for the dictionary was most of the key test for the
    /// engine's names (callgrind), and a few thousand scalars mostly fit in 16,384 places (128 KB, for
    /// the setup's check only).
    private var recentKeys = [UInt64](repeating: 0, count: 16_384)
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
        self.names = TextSet(names)
        asciiKeys = ascii
        otherKeys = other.sorted()
        self.comparesAll = comparesAll
    }

    /// No code and no name wanted.
    var isEmpty: Bool { codes.isEmpty && names.isEmpty }

    /// Whether the unit has a wanted code, or a wanted name among its names (whatever its level).
    mutating func accepts(_ unit: Placemark.Unit) -> Bool {
        unit.has(codeIn: codes, orName: &self)
    }

    /// Whether `name`, normalized, is a wanted name.
    mutating func hasName(_ name: String) -> Bool {
        if names.isEmpty { return false }
        if !comparesAll, let first = name.unicodeScalars.first, let key = key(first), !isWanted(key) { return false }
        namesCompared += 1
        return names.contains(AdministrativeArea.normalized(name))
    }

    /// ``hasName(_:)`` of the name these UTF-8 bytes hold, making a String only for a name that is not
    /// ASCII and passes the key test.
    mutating func hasName(utf8 name: UnsafeRawBufferPointer) -> Bool {
        if names.isEmpty { return false }
        // Empty, or not valid UTF-8 at the start: the String (with its replacement character) decides.
        guard let first = Self.firstScalar(name) else { return hasName(String(decoding: name, as: UTF8.self)) }
        if !comparesAll, let key = key(first), !isWanted(key) { return false }
        namesCompared += 1
        if let ascii = names.containsASCII(Self.trimmingASCIIWhiteSpace(name), foldingCase: true) { return ascii }
        return names.contains(AdministrativeArea.normalized(String(decoding: name, as: UTF8.self)))
    }

    /// The first scalar of these UTF-8 bytes; nil when they are empty or do not start with a valid one.
    private static func firstScalar(_ bytes: UnsafeRawBufferPointer) -> Unicode.Scalar? {
        guard let lead = bytes.first else { return nil }
        if lead < 0x80 { return Unicode.Scalar(lead) }
        var iterator = bytes.makeIterator(), decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return nil
    }

    /// The bytes without the ASCII white space at either end (Unicode's White_Space below 128: tab, line
    /// feed to carriage return, space), which ``AdministrativeArea/normalized(_:)`` trims.
    private static func trimmingASCIIWhiteSpace(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
        var lo = bytes.startIndex, hi = bytes.endIndex
        while lo < hi, isSpace(bytes[lo]) { lo += 1 }
        while hi > lo, isSpace(bytes[hi - 1]) { hi -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[lo..<hi])
    }

    private func isWanted(_ key: UInt32) -> Bool {
        if key < 64 { return asciiKeys.low & (1 << key) != 0 }
        if key < 128 { return asciiKeys.high & (1 << (key - 64)) != 0 }
        return otherKeys.contains(key)
    }

    /// The key of a name starting with `first`; `nil` when it cannot be told from that scalar alone.
    /// Inlined for ASCII, the common case.
    @inline(__always)
    private mutating func key(_ first: Unicode.Scalar) -> UInt32? {
        let v = first.value
        if v < 128 {
            // White space is trimmed by normalizing: the next scalar would decide.
            if v == 0x20 || (0x09...0x0D).contains(v) { return nil }
            return (0x41...0x5A).contains(v) ? v + 0x20 : v
        }
        return nonASCIIKey(first)
    }

    /// ``key(_:)`` of a scalar above ASCII: from the caches, else from its lowercase's decomposition.
    @inline(never)
    private mutating func nonASCIIKey(_ first: Unicode.Scalar) -> UInt32? {
        let v = first.value
        let slot = Int(v & UInt32(recentKeys.count - 1))
        if recentKeys[slot] >> 32 == UInt64(v) {
            let known = UInt32(truncatingIfNeeded: recentKeys[slot])
            return known == Self.noKey ? nil : known
        }
        if let known = keys[v] {
            recentKeys[slot] = UInt64(v) << 32 | UInt64(known)
            return known == Self.noKey ? nil : known
        }
        var key = Self.noKey
        if !first.properties.isWhitespace,
           let lead = String(first).lowercased().decomposedStringWithCanonicalMapping.unicodeScalars.first,
           lead.properties.canonicalCombiningClass == .notReordered {
            key = lead.value
        }
        keys[v] = key
        recentKeys[slot] = UInt64(v) << 32 | UInt64(key)
        return key == Self.noKey ? nil : key
    }

    private static func insert(_ key: UInt32, ascii: inout (low: UInt64, high: UInt64), other: inout Set<UInt32>) {
        if key < 64 { ascii.low |= 1 << key } else if key < 128 { ascii.high |= 1 << (key - 64) } else { other.insert(key) }
    }
}
