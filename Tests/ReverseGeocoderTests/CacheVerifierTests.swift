import Foundation
import Testing
import TestSupport
@testable import ReverseGeocoder

/// The block checks under an index cache: a block is hashed until it has matched once, then never again,
/// whether a query's range or a whole-section check proved it. A whole-section check that hashed proven
/// blocks again made `track --region` on a lazily checked cache 10× slower (the localities' names hashed
/// once per unit the region file's areas list).
struct CacheVerifierTests {
    final class Owner: Sendable {}

    /// Six blocks of random bytes (the last one short), their checksum table, a verifier over them.
    static func withSection(_ body: (UnsafeMutableRawBufferPointer, CacheVerifier, CacheVerifier.Region) throws -> Void) rethrows {
        let size = 5 * CacheVerifier.blockSize + 100
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { bytes.deallocate() }
        var rng = SplitMix64(seed: 27)
        for k in 0..<size { bytes[k] = UInt8(truncatingIfNeeded: rng.next()) }
        let table = CacheVerifier.checksums(of: UnsafeRawBufferPointer(bytes))
        try table.withUnsafeBufferPointer { t in
            let verifier = CacheVerifier(table: t, owner: Owner())
            let region = CacheVerifier.Region(name: "section", base: UnsafeRawPointer(bytes.baseAddress), bytes: size, firstBlock: 0)
            try body(bytes, verifier, region)
        }
    }

    @Test func damageInABlockNotYetProvenIsFound() throws {
        try Self.withSection { bytes, verifier, region in
            try verifier.verify(region, bytes: 0..<10)  // block 0 proven by a query
            bytes[4 * CacheVerifier.blockSize + 7] ^= 0x20
            #expect(throws: IndexCache.CacheDamage.self) { try verifier.verifyAll([region]) }
            do throws(IndexCache.CacheDamage) {
                try verifier.verifyAll([region])
            } catch {
                #expect(error.reason == "checksum mismatch in section (block 4)")
            }
            #expect(verifier.checkedBlocks(region) < region.blocks)
        }
    }

    @Test func aProvenBlockIsNotHashedAgain() throws {
        try Self.withSection { bytes, verifier, region in
            try verifier.verifyAll([region])
            #expect(verifier.checkedBlocks(region) == 6)
            // A proven block is trusted from then on (the mapping it lies in is read-only): a change after
            // the proof is not seen, by a range check as by a whole check. It would be, were it hashed again.
            bytes[3 * CacheVerifier.blockSize + 5] ^= 0x01
            try verifier.verify(region, bytes: 0..<region.bytes)
            try verifier.verifyAll([region])
            try verifier.verifyAll([region, region])
        }
    }
}
