import Synchronization

/// A value the engine builds off the loading thread (so neither the load nor a one-point run of the CLI
/// waits for it), that queries use once it is there and do without until then: the far mask
/// (``FarMaskSlot``) and the far answers (``FarAnswersSlot``). Published once through an atomic word,
/// so the query path reads it with one plain load: no lock, no reference count.
final class BackgroundSlot<Value: AnyObject & Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    /// The value's address once built (0 until then); `value` keeps it alive.
    private let published = Atomic<UInt>(0)
    private let build: @Sendable () -> Value?

    /// `build` runs once, on a thread of its own (``Workers/background(_:)``; holding the slot's lock
    /// while it runs), or in the first ``built()`` when no thread could be made.
    init(build: @escaping @Sendable () -> Value?) {
        self.build = build
        Workers.background { [self] in _ = self.built() }
    }

    /// The value if it is ready (nil while it is being built, or when there is none).
    @inline(__always)
    func ready() -> Unmanaged<Value>? {
        let bits = published.load(ordering: .acquiring)
        guard bits != 0, let raw = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<Value>.fromOpaque(raw)
    }

    /// The value, waiting for (or doing) its build: for ``ReverseGeocoder/waitUntilReady()``, what depends
    /// on it, and tests.
    func built() -> Value? {
        value.withLock { v in
            if v == nil, published.load(ordering: .acquiring) == 0, let made = build() {
                v = made
                published.store(UInt(bitPattern: Unmanaged.passUnretained(made).toOpaque()), ordering: .releasing)
            }
            return v
        }
    }
}

/// The geocoder's ``FarMask``: until it is published, queries search as before.
typealias FarMaskSlot = BackgroundSlot<FarMask>
/// The geocoder's ``FarAnswers``, built once the far mask is: until then queries take the full path.
typealias FarAnswersSlot = BackgroundSlot<FarAnswers>
