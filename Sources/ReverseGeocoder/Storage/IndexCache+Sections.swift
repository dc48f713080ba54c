import Foundation

extension IndexCache.Meta {
    /// Every section the metadata names, with the size of its elements and a name for messages (the
    /// checksum table not included): what the block checksums cover.
    var sections: [(section: IndexCache.Section, stride: Int, name: String)] {
        var all: [(IndexCache.Section, Int, String)] = []
        for (i, l) in layers.enumerated() {
            let n = "layer \(i)"
            all += [(l.placemarkSlots, 4, "\(n) placemarks"), (l.text, 4, "\(n) placemark text"), (l.partUnit, 4, "\(n) units"),
                    (l.vertices, 8, "\(n) vertices"), (l.ringStart, 4, "\(n) rings"), (l.partRings, 4, "\(n) polygons"),
                    (l.envelopes, 8, "\(n) boxes")]
            if let p = l.places { all.append((p, 8, "\(n) places")) }
            if let c = l.cells {
                all += [(c.nodes, 4, "\(n) cell nodes"), (c.mixedStart, 4, "\(n) border cell table"), (c.top, 4, "\(n) cell grid"),
                        (c.borders, 4, "\(n) crossing lists")]
            }
        }
        if let g = wgsGrid { all.append((g.entries, 4, "WGS-84 grid")) }
        if let m = emptyMask { all.append((m.words, 8, "empty mask")) }
        return all
    }
}

extension IndexCache {
    /// A cache file's metadata (checked against its checksum), for tests and tools that edit files.
    static func meta(ofFile bytes: [UInt8]) throws -> Meta {
        func word(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let offset = word(16), length = word(24)
        guard bytes.count >= 64, offset >= 64, length >= 0, offset + length <= bytes.count else {
            throw CacheDamage(reason: "metadata out of bounds")
        }
        return try CompactDecoder.decode(Meta.self, from: Array(bytes[offset..<(offset + length)]))
    }

    /// Writes every checksum of a cache file again (block table, its hash, the metadata's), as a writer
    /// would: for tests and fuzz harnesses that damage a body on purpose and want the damage to get
    /// past the checksums, to reach the structural checks behind them.
    static func reseal(_ bytes: inout [UInt8], meta edited: Meta? = nil) throws {
        var meta = try edited ?? self.meta(ofFile: bytes)
        let table = meta.checksums
        guard table.offset >= 64, table.count >= 0, table.offset + 8 * table.count <= bytes.count else {
            throw CacheDamage(reason: "checksum table out of bounds")
        }
        var checksums = [UInt64](repeating: 0, count: table.count)
        for (s, stride, _) in meta.sections where s.count > 0 {
            let end = s.offset + s.count * stride
            guard s.offset >= 64, end <= bytes.count, s.firstBlock >= 0 else { continue }
            let blocks = bytes[s.offset..<end].withUnsafeBytes { CacheVerifier.checksums(of: $0) }
            for (k, c) in blocks.enumerated() where s.firstBlock + k < checksums.count { checksums[s.firstBlock + k] = c }
        }
        checksums.withUnsafeBytes { raw in for (k, b) in raw.enumerated() { bytes[table.offset + k] = b } }
        meta.checksumsHash = checksums.withUnsafeBytes { ContentHash.of(bytes: $0) }
        let metaData = try CompactEncoder.encode(meta)
        func put(_ v: UInt64, _ at: Int) { withUnsafeBytes(of: v.littleEndian) { for (k, b) in $0.enumerated() { bytes[at + k] = b } } }
        let metaOffset = Int(bytes[16..<24].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) })
        bytes = Array(bytes[..<metaOffset]) + metaData
        put(UInt64(metaData.count), 24)
        put(UInt64(bytes.count), 32)
        put(metaData.withUnsafeBytes { ContentHash.of(bytes: $0) }, 40)
    }
}
