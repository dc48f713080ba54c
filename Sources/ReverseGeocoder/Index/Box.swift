/// An axis-aligned box in degrees. Four `Double`s in the order minX, minY, maxX, maxY, with nothing
/// between them: an array of boxes has the memory layout of the flat arrays the index cache stores
/// (polygon envelopes), so the type changes no byte on disk.
struct Box: Equatable, Sendable {
    var minX: Double, minY: Double, maxX: Double, maxY: Double

    /// The box that contains nothing, the start of a ``union(_:)``.
    static let empty = Box(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    /// The smallest box containing both.
    func union(_ other: Box) -> Box {
        Box(minX: min(minX, other.minX), minY: min(minY, other.minY), maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    /// The box grown by `margin` on every side.
    func grown(by margin: Double) -> Box {
        Box(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
    }

    /// Whether (x, y) lies outside the box (borders count as inside). Written as the four comparisons
    /// the query path always made, in that order.
    @inline(__always)
    func excludes(x: Double, y: Double) -> Bool {
        x < minX || y < minY || x > maxX || y > maxY
    }

    /// Whether the boxes share no point (touching borders count as shared).
    @inline(__always)
    func isDisjoint(from other: Box) -> Bool {
        minX > other.maxX || minY > other.maxY || maxX < other.minX || maxY < other.minY
    }
}
