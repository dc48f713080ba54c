import Foundation
import Testing
import TestSupport
@testable import ReverseGeocoder
import GeoModel

/// The index cache's binary metadata form (CompactEncoder / CompactDecoder).
@Suite struct CompactCodingTests {
    enum Colour: String, Codable, Equatable { case red, green }

    struct Inner: Codable, Equatable {
        var x: Double
        var tag: String?
    }

    struct Sample: Codable, Equatable {
        var flag: Bool
        var small: Int8
        var count: Int
        var unsigned: UInt64
        var float: Float
        var name: String
        var empty: String
        var colour: Colour
        var missing: Int?
        var present: Int?
        var inner: Inner
        var list: [Inner]
        var numbers: [Int]
        var table: [String: Int]
        var nested: [[String]]
    }

    static let sample = Sample(flag: true, small: -7, count: Int.min, unsigned: .max, float: 1.5, name: "Île-de-France 北京",
                               empty: "", colour: .green, missing: nil, present: 42,
                               inner: Inner(x: -0.0, tag: nil), list: [Inner(x: .pi, tag: "a"), Inner(x: .infinity, tag: nil)],
                               numbers: [], table: ["b": 2, "a": 1, "长": 3], nested: [["x"], [], ["y", "z"]])

    @Test func aValueComesBackAsItWas() throws {
        let bytes = try CompactEncoder.encode(Self.sample)
        let back = try CompactDecoder.decode(Sample.self, from: bytes)
        #expect(back == Self.sample)
        #expect(back.inner.x.sign == .minus, "the bit pattern is kept")
    }

    /// The real thing: a cache file's metadata, as the engine writes it, decodes to what JSON says it is.
    @Test func aCacheFilesMetadataRoundTrips() throws {
        _ = try BundledData.geocoder("world")  // writes (or has written) the dataset's cache
        let names = try FileManager.default.contentsOfDirectory(atPath: BundledData.cacheDirectory.path)
        let name = try #require(names.first { $0.hasPrefix("world-") && $0.hasSuffix(".geoidx") })
        let file = [UInt8](try Data(contentsOf: BundledData.cacheDirectory.appendingPathComponent(name)))
        let meta = try IndexCache.meta(ofFile: file)
        let again = try CompactDecoder.decode(IndexCache.Meta.self, from: try CompactEncoder.encode(meta))
        // Meta is not Equatable: compare through JSON, an independent encoder.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try encoder.encode(again) == encoder.encode(meta))
        #expect(meta.format == IndexCache.formatVersion)
        #expect(!meta.layers.isEmpty && meta.info.name == "world")
    }

    @Test func aNumberThatDoesNotFitIsAnError() throws {
        struct Wide: Codable { var small: Int }
        struct Narrow: Codable { var small: Int8 }
        let bytes = try CompactEncoder.encode(Wide(small: 300))
        #expect(throws: DecodingError.self) { try CompactDecoder.decode(Narrow.self, from: bytes) }
        struct Other: Codable { var other: Int }
        #expect(throws: DecodingError.self) { try CompactDecoder.decode(Other.self, from: bytes) }
    }

    /// Every truncation and many single-byte changes of a real encoding either decode or throw: never a
    /// crash or a read past the bytes (the fuzz harness does the same at scale under the sanitizers).
    @Test func damagedBytesThrowOrDecodeButNeverCrash() throws {
        let bytes = try CompactEncoder.encode(Self.sample)
        var threw = 0
        for n in 0..<bytes.count {
            do { _ = try CompactDecoder.decode(Sample.self, from: Array(bytes[..<n])) } catch { threw += 1 }
        }
        #expect(threw == bytes.count, "every truncation is an error")
        var random = SplitMix64(seed: 20261201)
        for _ in 0..<5_000 {
            var damaged = bytes
            for _ in 0..<(1 + Int(random.next() % 3)) {
                damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            _ = try? CompactDecoder.decode(Sample.self, from: damaged)
        }
    }
}
