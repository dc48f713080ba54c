#if canImport(Glibc)
import Glibc
#endif
/// The placemark section of the index cache, laid out by the field table (``PlacemarkField``): per unit,
/// two 32-bit words for every stored field in table order, then two for each level's other-language
/// names. A text is (offset, length) into the layer's text bytes, length `UInt32.max` for none; a number
/// is its IEEE bit pattern (high word, low word), all ones for none. Names per language are one text,
/// `tag US name RS tag US name ...` (ASCII unit and record separators, which no name contains); a layer
/// writes each distinct names text once, so several units' slots may point at the same bytes.
///
/// Adding a field to the table changes ``slotsPerPlacemark`` and so the section's size: an old file is
/// then rejected as damaged even before the format version (which must be bumped too) says so.
enum PlacemarkSlots {
    /// The fields the section stores: all but the derived ones and the dataset (the manifest's name).
    static let fields = PlacemarkField.allCases.filter { !$0.isDerived && $0 != .dataset }
    static let slotsPerPlacemark = 2 * fields.count + 2 * AdminLevel.allCases.count
    /// Between a names text's tag and name, and between its records (also read by ``UnitTexts``).
    static let unitSeparator: UInt8 = 0x1F, recordSeparator: UInt8 = 0x1E
    private static let noNumber = UInt64.max

    struct Damage: Error { var reason: String }

    /// Names texts already written to a layer's text bytes, and names already decoded from them: every
    /// unit of a dataset repeats its country's names (150 languages, 3 KB), so each distinct text is
    /// written once and decoded once, and the placemarks share one dictionary (without this, the world
    /// and China caches carried ~40 MB of copies, decoded into as many dictionaries at every start).
    ///
    /// Written texts are found by their bytes, not as Strings: a String key is hashed and compared by
    /// Unicode canonical equivalence, which normalizes every name of every language of each text (a
    /// country's 3 KB, once for each of its units and levels). That was a third of the CPU of a whole
    /// `geocode index` of the bundled data (perf, session 29). Bytes are also what the file holds: two
    /// texts that differ in their bytes now keep their own bytes.
    ///
    /// And per level, the names last written and where: consecutive units share their country's and often
    /// their province's names, so a text the same as the last one, byte for byte (``sameBytes(_:_:)``),
    /// is not sorted, packed and looked up again (the sort was 6 % of a whole `geocode index`).
    struct NamesPool {
        var written: [PackedNames: (offset: UInt32, length: UInt32)] = [:]
        var decoded: [UInt64: [String: String]] = [:]
        var last: [AdminLevel: (names: [String: String], offset: UInt32, length: UInt32)] = [:]
    }

    /// A names text as the bytes written, hashed as bytes.
    struct PackedNames: Hashable {
        var bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Appends one placemark's slots (and its texts).
    static func append(_ p: Placemark, slots: inout [UInt32], text: inout [UInt8]) {
        var pool = NamesPool()
        append(p, slots: &slots, text: &text, pool: &pool)
    }

    /// Appends one placemark's slots (and its texts), writing each distinct names text once per `pool`.
    static func append(_ p: Placemark, slots: inout [UInt32], text: inout [UInt8], pool: inout NamesPool) {
        func put(_ s: String?) {
            if let s {
                slots += [UInt32(text.count), UInt32(s.utf8.count)]
                text += s.utf8
            } else {
                slots += [0, UInt32.max]
            }
        }
        for field in fields {
            switch field.value(of: p) {
            case .text(let s): put(s)
            case .number(let d):
                let bits = d?.bitPattern ?? noNumber
                slots += [UInt32(truncatingIfNeeded: bits >> 32), UInt32(truncatingIfNeeded: bits)]
            case .flag(let b): slots += [0, b ? 1 : 0]
            }
        }
        for level in AdminLevel.allCases {
            let names = p[level].names
            if names.isEmpty { put(nil); continue }
            if let last = pool.last[level], sameBytes(last.names, names) {
                slots += [last.offset, last.length]
                continue
            }
            var bytes: [UInt8] = []
            for (tag, name) in names.sorted(by: { $0.key < $1.key }) {
                if !bytes.isEmpty { bytes.append(recordSeparator) }
                bytes += tag.utf8
                bytes.append(unitSeparator)
                bytes += name.utf8
            }
            let packed = PackedNames(bytes: bytes)
            let at: (offset: UInt32, length: UInt32)
            if let written = pool.written[packed] {
                at = written
            } else {
                at = (UInt32(text.count), UInt32(bytes.count))
                pool.written[packed] = at
                text += bytes
            }
            slots += [at.offset, at.length]
            pool.last[level] = (names, at.offset, at.length)
        }
    }

    /// Whether two names dictionaries hold the same tags and names byte for byte. Not `==`, which is
    /// canonical equivalence (a precomposed and a combining accent are equal under it) and normalizes
    /// every name it compares. One dictionary twice (the usual case: the units of a province share the
    /// names table's own) is known by its bits alone, one reference to the same storage, so its 150
    /// languages are not compared (that walk was 6 % of a whole `geocode index`, perf). Otherwise walked
    /// side by side first: equal dictionaries built alike list their entries in the same order, and then
    /// no tag is looked up.
    static func sameBytes(_ a: [String: String], _ b: [String: String]) -> Bool {
        if withUnsafeBytes(of: a, { x in withUnsafeBytes(of: b) { y in x.elementsEqual(y) } }) { return true }
        guard a.count == b.count else { return false }
        if zip(a, b).allSatisfy({ sameBytes($0.key, $1.key) && sameBytes($0.value, $1.value) }) { return true }
        for (tag, name) in a {
            guard let i = b.index(forKey: tag) else { return false }
            let other = b[i]
            guard sameBytes(other.key, tag), sameBytes(other.value, name) else { return false }
        }
        return true
    }

    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b  // withUTF8 needs a variable; a native string is not copied
        return a.withUTF8 { x in b.withUTF8 { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) } }
    }

    /// Reads unit `u`'s placemark; every offset is checked against `bytes`.
    static func read(_ u: Int, slots: UnsafeBufferPointer<UInt32>, bytes: UnsafeRawBufferPointer, dataset: String) throws(Damage) -> Placemark {
        var pool = NamesPool()
        return try read(u, slots: slots, bytes: bytes, dataset: dataset, pool: &pool)
    }

    /// The two words at slots `at`, `at + 1` (in the table: the caller checked) as one, the first high:
    /// a number's bit pattern, and a names text's key (its offset and length: a layer writes each distinct
    /// names text once, so units whose keys are equal have the same names).
    static func word(at: Int, slots: UnsafeBufferPointer<UInt32>) -> UInt64 {
        UInt64(slots[at]) << 32 | UInt64(slots[at + 1])
    }

    /// The bytes of the text whose (offset, length) is at slots `at`, `at + 1` (in the table: the caller
    /// checked), nil for none; damage when it points outside `bytes`.
    static func textBytes(at: Int, slots: UnsafeBufferPointer<UInt32>, bytes: UnsafeRawBufferPointer) throws(Damage) -> UnsafeRawBufferPointer? {
        let start = Int(slots[at]), length = slots[at + 1]
        if length == UInt32.max { return nil }
        guard start <= bytes.count, Int(length) <= bytes.count - start else { throw Damage(reason: "placemark text out of bounds") }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<(start + Int(length))])
    }

    /// Reads unit `u`'s placemark, decoding each distinct names text once per `pool`.
    static func read(_ u: Int, slots: UnsafeBufferPointer<UInt32>, bytes: UnsafeRawBufferPointer, dataset: String,
                     pool: inout NamesPool) throws(Damage) -> Placemark {
        let base = u * slotsPerPlacemark
        guard base >= 0, base + slotsPerPlacemark <= slots.count else { throw Damage(reason: "placemark table size") }
        func text(_ i: Int) throws(Damage) -> String? {
            try textBytes(at: base + 2 * i, slots: slots, bytes: bytes).map { String(decoding: $0, as: UTF8.self) }
        }
        // The units first, the placemark once: setting field by field on a placemark copied a unit per
        // field (a third of a cold start's instructions).
        var units = ContiguousArray(repeating: Placemark.Unit(), count: AdminLevel.allCases.count)
        var others: [(PlacemarkField, PlacemarkField.Value)] = []
        for (i, field) in fields.enumerated() {
            let value: PlacemarkField.Value
            switch field.kind {
            case .text: value = .text(try text(i))
            case .number:
                let bits = word(at: base + 2 * i, slots: slots)
                value = .number(bits == noNumber ? nil : Double(bitPattern: bits))
            case .flag: value = .flag(slots[base + 2 * i + 1] & 1 == 1)
            }
            do throws(PlacemarkFieldError) {
                if case .level(let level, _) = field {
                    try field.set(value, in: &units[level.rank])
                } else {
                    others.append((field, value))
                }
            } catch {
                throw Damage(reason: error.description)
            }
        }
        for level in AdminLevel.allCases {
            let key = word(at: base + 2 * (fields.count + level.rank), slots: slots)
            if let known = pool.decoded[key] {
                units[level.rank].names = known
                continue
            }
            guard let packed = try text(fields.count + level.rank) else { continue }
            var names: [String: String] = [:]
            for record in packed.utf8.split(separator: recordSeparator, omittingEmptySubsequences: false) {
                let parts = record.split(separator: unitSeparator, maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw Damage(reason: "placemark names malformed") }
                names[String(decoding: parts[0], as: UTF8.self)] = String(decoding: parts[1], as: UTF8.self)
            }
            pool.decoded[key] = names
            units[level.rank].names = names
        }
        var p = Placemark(units: units, dataset: dataset)
        for (field, value) in others {
            do throws(PlacemarkFieldError) { try field.set(value, in: &p) } catch { throw Damage(reason: error.description) }
        }
        return p
    }
}
