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
        for step in 0..<200_000 {
            // Strides of a prime coprime to the count: every placemark, in an order that spreads over the sets,
            // each again 2.5 times; plus "no placemark" now and then.
            let p: Placemark? = step % 50 == 0 ? nil : placemarks[(step &* 7919) % placemarks.count]
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
