import Synchronization

/// A layer's ``EdgeChunks``, built from its polygons when the coast fallback first reaches the layer,
/// off the querying thread: until they are published the search measures whole polygons as before
/// (``NearestUnit``, the same edges in the same frames, so the same answer). A load that never misses
/// every unit (or has the fallback off) never builds them; a one-point run of the CLI at sea does not
/// wait for them. Published once through an atomic word, like ``FarMaskSlot``: the query path reads
/// them with one load, no lock, no reference count.
final class EdgeChunksSlot: Sendable {
    final class Built: Sendable {
        let chunks: EdgeChunks
        init(_ chunks: EdgeChunks) { self.chunks = chunks }
    }

    private let built = Mutex<Built?>(nil)
    /// The chunks' address once built (0 until then); `built` keeps them alive.
    private let published = Atomic<UInt>(0)
    private let requested = Atomic<Bool>(false)

    init() {}

    /// The chunks if they are ready.
    @inline(__always)
    func ready() -> Unmanaged<Built>? {
        let bits = published.load(ordering: .acquiring)
        guard bits != 0, let raw = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<Built>.fromOpaque(raw)
    }

    /// Starts the build on a utility queue, once. `store` and `partUnit` must have been checked (a layer
    /// checked on first use: after ``LayerFirstUse/prepareTree()``); `owner` keeps them alive.
    func request(store: PolygonStore, partUnit: UnsafeBufferPointer<Int32>, owner: LayerIndex) {
        guard !requested.load(ordering: .relaxed),
              requested.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        nonisolated(unsafe) let units = partUnit
        Workers.background {
            _ = self.wait(store: store, partUnit: units)
            withExtendedLifetime(owner) {}
        }
    }

    /// The chunks, building them here if no one has (waiting if a build is under way): for
    /// ``ReverseGeocoder/waitUntilReady()`` and tests.
    @discardableResult
    func wait(store: PolygonStore, partUnit: UnsafeBufferPointer<Int32>) -> EdgeChunks {
        built.withLock { b in
            if let b { return b.chunks }
            let made = Built(EdgeChunks.build(store: store, partUnit: partUnit))
            b = made
            published.store(UInt(bitPattern: Unmanaged.passUnretained(made).toOpaque()), ordering: .releasing)
            return made.chunks
        }
    }
}
