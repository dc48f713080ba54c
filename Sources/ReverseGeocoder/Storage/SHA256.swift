import CSHA256
import Foundation

/// SHA-256 (FIPS 180-4), written here because Foundation on Linux has none and the package may use no
/// outside library. Used only to check source files against their manifest's `files` digests when an
/// index is built from shapefiles (see ``DatasetIntegrity``), never on the query path or a warm start.
///
/// Why SHA-256 and not a faster hash there: the digests are the manifest's, written by `build.py` and
/// by users' own tools (`sha256sum`), and they stand for the published data; a 64-bit hash of our own
/// could be matched on purpose by a swapped file. The index cache's own checksums (``ContentHash``) need
/// no such strength and run at memory speed.
///
/// The blocks go through the CPU's SHA instructions where it has them (`CSHA256`, about a tenth of the
/// Swift rounds' time: they were 13 % of a bundled build); the Swift rounds below stay for other CPUs
/// and as the tests' reference.
struct SHA256 {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// Whether this CPU runs SHA-256 blocks in hardware (asked once).
    static let hardware = sha256_ni_available() != 0
    private let useHardware: Bool

    /// `portable`: always the Swift rounds (the tests compare the two).
    init(portable: Bool = false) { useHardware = !portable && Self.hardware }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        length += UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending += bytes[0..<take]
            start = take
            if pending.count == 64 {
                pending.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        let whole = (bytes.count - start) / 64
        if whole > 0 { compress(bytes.baseAddress! + start, blocks: whole) }
        start += whole * 64
        if start < bytes.count { pending += bytes[start...] }
    }

    /// The digest as 64 lowercase hex digits.
    mutating func finish() -> String {
        let bits = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        tail.withUnsafeBytes { compress($0.baseAddress!, blocks: $0.count / 64) }
        pending = []
        let words = [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7]
        return words.map { w in
            let s = String(w, radix: 16)
            return String(repeating: "0", count: 8 - s.count) + s
        }.joined()
    }

    private mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
        if useHardware {
            withUnsafeMutableBytes(of: &h) { state in
                sha256_ni_compress(state.baseAddress!.assumingMemoryBound(to: UInt32.self), data.assumingMemoryBound(to: UInt8.self), blocks)
            }
            return
        }
        var w = [UInt32](repeating: 0, count: 64)
        Self.k.withUnsafeBufferPointer { k in
            w.withUnsafeMutableBufferPointer { w in
                for b in 0..<blocks {
                    let block = data + b * 64
                    for i in 0..<16 { w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
                    for i in 16..<64 {
                        let x = w[i - 15], y = w[i - 2]
                        let s0 = (x >> 7 | x << 25) ^ (x >> 18 | x << 14) ^ (x >> 3)
                        let s1 = (y >> 17 | y << 15) ^ (y >> 19 | y << 13) ^ (y >> 10)
                        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                    }
                    var (a, bb, c, d, e, f, g, hh) = h
                    for i in 0..<64 {
                        let s1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
                        let ch = (e & f) ^ (~e & g)
                        let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                        let s0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
                        let maj = (a & bb) ^ (a & c) ^ (bb & c)
                        let t2 = s0 &+ maj
                        hh = g; g = f; f = e; e = d &+ t1
                        d = c; c = bb; bb = a; a = t1 &+ t2
                    }
                    h = (h.0 &+ a, h.1 &+ bb, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
                }
            }
        }
    }

    /// The digest of some bytes.
    static func hex(of bytes: UnsafeRawBufferPointer) -> String {
        var s = SHA256()
        s.update(bytes)
        return s.finish()
    }

    static func hex(of data: Data) -> String { data.withUnsafeBytes { hex(of: $0) } }

    /// The digest of a file's contents (mapped, not copied).
    static func hex(ofFile path: String) throws -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if (attributes?[.size] as? Int) == 0 { return hex(of: Data()) }
        let mapped = try FileInMemory(path: path)
        return hex(of: UnsafeRawBufferPointer(start: mapped.base, count: mapped.count))
    }
}
