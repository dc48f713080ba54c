/// SplitMix64: a tiny, fast generator whose sequence depends only on its seed, on every platform and
/// Swift version (unlike `SystemRandomNumberGenerator`), which is what reproducible simulations need.
/// Not for anything security-related.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1) from the top 53 bits, so the value is the same everywhere
    /// (`Double.random(in:using:)` doesn't promise a particular mapping across versions).
    mutating func unitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
