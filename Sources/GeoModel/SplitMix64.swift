/// SplitMix64: a tiny, fast generator whose sequence depends only on its seed, on every platform and
/// Swift version (unlike `SystemRandomNumberGenerator`), which is what reproducible simulations and
/// seeded tests need. The one copy in the house: synthetic routes and every test target use it.
/// Not for anything security-related.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1) from the top 53 bits, so the value is the same everywhere
    /// (`Double.random(in:using:)` doesn't promise a particular mapping across versions).
    public mutating func unitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniform double in [low, high), by ``unitInterval()``.
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * unitInterval()
    }
}
