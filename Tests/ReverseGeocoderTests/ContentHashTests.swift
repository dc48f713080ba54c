import Testing
@testable import ReverseGeocoder

/// The index cache's block checksum (and the source files' change check): ``ContentHash``. Pinned by
/// known answers (computed once with this implementation and committed: a change of the function must
/// come with a cache format bump), held to a slow byte-by-byte statement of the same definition for
/// every length of the lanes and the tail, and shown to catch the damages a block checksum is for.
struct ContentHashTests {
    static func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { ContentHash.of(bytes: $0) } }

    /// The definition, one byte at a time: words little-endian; whole 32-byte stripes word j into lane j;
    /// then the remaining whole words into lane 0, the last partial word (zero-filled, maybe empty) into
    /// lane 0 by the final step, the lanes folded with odd multipliers and the length, mixed once more.
    static func reference(_ b: [UInt8]) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        func mix(_ h: UInt64, _ w: UInt64) -> UInt64 { let m = (h ^ w) &* k; return m ^ (m >> 31) }
        func word(_ at: Int, _ count: Int) -> UInt64 { (0..<count).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
        var lane: [UInt64] = [0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0, 0x082E_FA98_EC4E_6C89]
        var i = 0
        while b.count - i >= 32 {
            for j in 0..<4 { lane[j] = mix(lane[j], word(i + 8 * j, 8)) }
            i += 32
        }
        while b.count - i >= 8 { lane[0] = mix(lane[0], word(i, 8)); i += 8 }
        let n = UInt64(b.count)
        let h = mix(lane[0], word(i, b.count - i)) ^ (lane[1] &* 3) ^ (lane[2] &* 5) ^ (lane[3] &* 7) ^ n
        return mix(h, n &* k)
    }

    @Test func knownAnswers() {
        #expect(Self.hash([]) == 0xeb04_8441_0d3e_8dd9)
        #expect(Self.hash(Array("abc".utf8)) == 0x0398_86da_c3c7_10ba)
        #expect(Self.hash(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0xa9f3_0b2c_0736_44a0)
        #expect(Self.hash((0..<64).map { UInt8($0) }) == 0x84c3_b758_1841_0455)
        #expect(Self.hash((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }) == 0x8eb6_d3e8_e329_3503)
    }

    /// Every length 0 ... 64 (no stripe, one, two; every tail) and a few past it, from every start
    /// offset 0 ... 7 of a buffer (unaligned loads), equals the byte-by-byte definition.
    @Test func everyLengthAndAlignmentEqualsTheReference() {
        var rng = SplitMix64(seed: 64)
        let bytes = (0..<200).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        for n in Array(0...64) + [95, 96, 97, 127, 128, 129] {
            for start in 0..<8 {
                let slice = Array(bytes[start..<(start + n)])
                let fast = bytes.withUnsafeBytes { ContentHash.of(bytes: UnsafeRawBufferPointer(rebasing: $0[start..<(start + n)])) }
                #expect(fast == Self.reference(slice), "\(n) bytes at \(start)")
            }
        }
    }

    /// A 4 KB block (a quarter of the cache's 16 KB checksum block: the same stripes, a quarter of the
    /// time): every single-bit flip, every swap of two neighbouring bytes that differ (inside a word and
    /// across words and lanes), of bytes one word and one stripe apart, and of random far pairs, each
    /// changes the checksum. (A one-word change always does: each step is a bijection of the lane; the
    /// others are 2^-64 chances, and none may happen here.)
    @Test func everyBitFlipAndByteSwapIsDetected() {
        var rng = SplitMix64(seed: 4096)
        var block = (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        // Some runs of equal and of zero bytes, as real sections have (a swap there is no damage: skipped).
        for i in 1000..<1100 { block[i] = 0 }
        for i in 2000..<2040 { block[i] = 7 }
        let good = Self.hash(block)
        var missed = 0
        block.withUnsafeMutableBytes { raw in
            for i in 0..<raw.count {
                for bit in 0..<8 {
                    raw[i] ^= 1 << bit
                    if ContentHash.of(bytes: UnsafeRawBufferPointer(raw)) == good { missed += 1 }
                    raw[i] ^= 1 << bit
                }
            }
            func swapped(_ i: Int, _ j: Int) {
                guard j < raw.count, raw[i] != raw[j] else { return }
                raw.swapAt(i, j)
                if ContentHash.of(bytes: UnsafeRawBufferPointer(raw)) == good { missed += 1 }
                raw.swapAt(i, j)
            }
            for i in 0..<raw.count { swapped(i, i + 1); swapped(i, i + 8); swapped(i, i + 32) }
            for _ in 0..<2000 { swapped(Int(rng.next() % 4096), Int(rng.next() % 4096)) }
        }
        #expect(missed == 0)
        #expect(Self.hash(block) == good)
    }
}
