@testable import ReverseGeocoder

/// The cell tree by its definition, the slow way, as the tests' oracle for ``CellTreeBuilder``: every
/// child of a cell tests every segment of every part whose box reaches it (the full
/// `segmentMayTouch`), and a child no segment touches asks `containsProperly` for each reaching part in
/// order until one holds its centre. Same arithmetic for the cells' grown boxes and centres as the
/// builder (the tree must be the same bit for bit, not just close).
enum ReferenceCellTree {
    enum Leaf: Equatable, CustomStringConvertible {
        case unit(Int32)
        case empty
        case border(parts: [Int32], column: Int32, row: Int32, level: Int8)

        var description: String {
            switch self {
            case .unit(let u): return "unit \(u)"
            case .empty: return "empty"
            case .border(let parts, let column, let row, let level): return "border \(level)/\(column)/\(row) \(parts)"
            }
        }
    }

    /// The leaves in depth-first order (children south-west, south-east, north-west, north-east).
    static func leaves(inputs: CellBuildInputs, originX: Double, originY: Double, side: Double,
                       containsProperly: (Int, Double, Double) -> Bool) -> [Leaf] {
        var out: [Leaf] = []
        let m = CellIndex.margin
        func visit(x0: Double, y0: Double, side: Double, level: Int, column: Int, row: Int, parts: [Int32], segs: [[Int32]]) {
            let half = side / 2
            for child in 0..<4 {
                let cx0 = x0 + (child & 1 == 1 ? half : 0), cy0 = y0 + (child & 2 == 2 ? half : 0)
                let box = Box(minX: cx0 - m, minY: cy0 - m, maxX: cx0 + (half + m), maxY: cy0 + (half + m))
                var childParts: [Int32] = [], childSegs: [[Int32]] = []
                for (i, p) in parts.enumerated() where !inputs.boxes[Int(p)].isDisjoint(from: box) {
                    childParts.append(p)
                    childSegs.append(segs[i].filter { CellTreeBuilder.segmentMayTouch(inputs.segments[Int($0)], box) })
                }
                let edges = childSegs.reduce(0) { $0 + $1.count }
                if edges == 0 {
                    let cx = cx0 + half / 2, cy = cy0 + half / 2
                    let holder = childParts.first { containsProperly(Int($0), cx, cy) }
                    out.append(holder.map { .unit(inputs.unitOf[Int($0)]) } ?? .empty)
                } else if level + 1 >= inputs.maxDepth || (level + 1 >= inputs.baseDepth && edges <= inputs.maxEdges) {
                    out.append(.border(parts: childParts, column: Int32(2 * column + (child & 1)), row: Int32(2 * row + (child >> 1)),
                                       level: Int8(level + 1)))
                } else {
                    visit(x0: cx0, y0: cy0, side: half, level: level + 1, column: 2 * column + (child & 1), row: 2 * row + (child >> 1),
                          parts: childParts, segs: childSegs)
                }
            }
        }
        let parts = (0..<Int32(inputs.boxes.count)).map { $0 }
        let segs = parts.map { p in (inputs.segStart[Int(p)]..<inputs.segStart[Int(p) + 1]).map { $0 } }
        visit(x0: originX, y0: originY, side: side, level: 0, column: 0, row: 0, parts: parts, segs: segs)
        return out
    }

    /// A built tree's leaves in the same order.
    static func leaves(of tree: CellTree) -> [Leaf] {
        var out: [Leaf] = []
        func visit(_ node: Int) {
            for child in 0..<4 {
                let entry = tree.nodes[4 * node + child], value = Int(entry & 0x3FFF_FFFF)
                switch entry >> 30 {
                case CellIndex.tagNode: visit(value)
                case CellIndex.tagUnit: out.append(.unit(Int32(value)))
                case CellIndex.tagEmpty: out.append(.empty)
                default:
                    let cell = tree.mixedCells[value]
                    out.append(.border(parts: Array(tree.mixedParts[Int(tree.mixedStart[value])..<Int(tree.mixedStart[value + 1])]),
                                       column: cell.column, row: cell.row, level: cell.level))
                }
            }
        }
        visit(0)
        return out
    }
}
