import Foundation

/// A fast 64-bit content hash (not cryptographic): tells whether a source file changed when its size
/// and modification time alone cannot (a `touch`, a copy that kept the size). Four independent lanes
/// of multiply-xorshift over 8-byte words, so it runs at memory speed.
enum ContentHash {
    static func of(bytes: UnsafeRawBufferPointer) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h0: UInt64 = 0x243F_6A88_85A3_08D3, h1: UInt64 = 0x1319_8A2E_0370_7344
        var h2: UInt64 = 0xA409_3822_299F_31D0, h3: UInt64 = 0x082E_FA98_EC4E_6C89
        let n = bytes.count
        var i = 0
        @inline(__always) func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
            let m = (h ^ w) &* k
            return m ^ (m >> 31)
        }
        while i + 32 <= n {
            h0 = mix(h0, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h1 = mix(h1, bytes.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
            h2 = mix(h2, bytes.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
            h3 = mix(h3, bytes.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
            i += 32
        }
        var tail: UInt64 = 0, shift: UInt64 = 0
        while i < n {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
            if shift == 64 { h0 = mix(h0, tail); tail = 0; shift = 0 }
        }
        var h = mix(h0, tail) ^ (h1 &* 3) ^ (h2 &* 5) ^ (h3 &* 7) ^ UInt64(n)
        h = mix(h, UInt64(n) &* k)
        return h
    }

    static func of(data: Data) -> UInt64 {
        data.withUnsafeBytes { of(bytes: $0) }
    }

    /// The hash of a file's contents (mapped, not read into memory).
    static func of(file path: String) throws -> UInt64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if (attributes?[.size] as? Int) == 0 { return of(bytes: UnsafeRawBufferPointer(start: nil, count: 0)) }
        let mapped = try FileInMemory(path: path)
        return of(bytes: UnsafeRawBufferPointer(start: mapped.base, count: mapped.count))
    }
}
