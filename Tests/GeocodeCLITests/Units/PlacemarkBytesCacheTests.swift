import GeoModel
@testable import GeocodeCLI
import Testing

/// The worker's cache of encoded placemark columns: whatever it holds or evicts, a row gets exactly the
/// bytes a fresh encoding gives, and a placemark used again soon is not encoded again.
@Suite struct PlacemarkBytesCacheTests {
    final class Count: @unchecked Sendable { var value = 0 }

    static func encode(_ placemark: Placemark?, _ out: inout [UInt8]) {
        out += Array((placemark?.country ?? "-").utf8)
        out.append(UInt8(ascii: ","))
        out += Array((placemark?.isoCountryCode ?? "-").utf8)
    }

    @Test func bytesAreAFreshEncodingWhateverIsEvicted() {
        let encodes = Count()
        var cache = PlacemarkBytesCache { p, out in
            encodes.value += 1
            Self.encode(p, &out)
        }
        // More placemarks than the cache has entries (64 k): sets overflow and entries are evicted.
        let placemarks = (0..<80_000).map { Placemark(country: "Country \($0)", isoCountryCode: "C\($0 % 97)", dataset: "t") }
        var generator = SplitMix(seed: 17)
        for step in 0..<200_000 {
            let p: Placemark? = step % 50 == 0 ? nil : placemarks[Int(generator.next() % UInt64(placemarks.count))]
            var got: [UInt8] = [], expected: [UInt8] = []
            cache.append(p, to: &got)
            Self.encode(p, &expected)
            guard got == expected else {
                Issue.record("step \(step): \(String(decoding: got, as: UTF8.self)) != \(String(decoding: expected, as: UTF8.self))")
                return
            }
        }
        #expect(encodes.value < 200_000)
    }

    @Test func aPairUsedInTurnIsEncodedOnceEach() {
        let encodes = Count()
        var cache = PlacemarkBytesCache { p, out in
            encodes.value += 1
            Self.encode(p, &out)
        }
        let a = Placemark(country: "A", dataset: "t"), b = Placemark(country: "B", dataset: "t")
        var out: [UInt8] = []
        let before = encodes.value   // the "no placemark" bytes are encoded once, up front
        for _ in 0..<100 {
            cache.append(a, to: &out)
            cache.append(b, to: &out)
        }
        // Two-way sets: even two placemarks of one set stay cached together.
        #expect(encodes.value - before == 2)
        #expect(out.count == 100 * (Array("A,-".utf8).count + Array("B,-".utf8).count))
    }
}

/// A small deterministic generator, so a failure repeats.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
