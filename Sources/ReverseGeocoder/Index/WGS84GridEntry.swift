/// One cell of the ``WGS84Grid``: "unknown" (convert the point and look it up), "no unit in any
/// layer", or a layer and a unit.
///
/// Stored as the 32 bits the index cache keeps for each cell: 0 is unknown, all ones is no unit, and
/// anything else is `(layer + 1) << 28 | unit` (layers counted finest first, so at most 14 layers and
/// 2^28 units per layer fit). The type only names those bits; it changes none of them.
struct WGS84GridEntry: Equatable, Sendable {
    let rawValue: UInt32

    @inline(__always)
    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Convert and look up: the cell's neighbourhood does not land in one unit.
    static let unknown = WGS84GridEntry(rawValue: 0)
    /// No layer has a unit anywhere near the cell.
    static let none = WGS84GridEntry(rawValue: 0xFFFF_FFFF)

    private static let unitBits: UInt32 = 28
    /// The largest number of layers an entry can name (layer + 1 must fit in 4 bits and not be all ones).
    static let maxLayers = 14

    /// The entry for `unit` of `layer` (finest first); nil when it does not fit in 32 bits.
    init?(layer: Int, unit: Int) {
        guard layer >= 0, layer < Self.maxLayers, unit >= 0, unit < 1 << Int(Self.unitBits) else { return nil }
        rawValue = UInt32(layer + 1) << Self.unitBits | UInt32(unit)
    }

    /// Whether the entry names a layer and a unit (neither unknown nor none).
    @inline(__always)
    var isUnit: Bool { self != .unknown && self != .none }

    /// The layer (finest first) of an entry that names a unit.
    @inline(__always)
    var layer: Int { Int(rawValue >> Self.unitBits) - 1 }

    /// The unit of an entry that names one.
    @inline(__always)
    var unit: Int { Int(rawValue & (1 << Self.unitBits - 1)) }
}
