import GeoModel
import Testing
@testable import ReverseGeocoder

/// ``CellIndex/entriesAreValid(_:inNodes:nodeCount:units:words:)``, the loaded cache's check of the top
/// grid and the two-level nodes four entries at a time in vector lanes, against the rule written out entry
/// by entry (brute force): a node entry names a node that exists (from a node's entry, a later one), a
/// unit entry a unit that exists, a border cell entry a word inside the border records, and an empty
/// entry anything. Every entry of a sound array is changed in turn to values at and around each limit,
/// under each tag: the two must agree on every one.
struct NodeCheckTests {
    static let tagNode: UInt32 = 0, tagUnit: UInt32 = 1, tagEmpty: UInt32 = 2, tagMixed: UInt32 = 3

    /// The rule, one entry at a time: what ``CellIndex/inconsistency(_:parts:units:vertices:)`` asks of
    /// every node entry (`inNodes`) or top-grid entry.
    static func reference(_ nodes: [UInt32], inNodes: Bool = true, nodeCount: UInt32, units: UInt32, words: UInt32) -> Bool {
        for (i, e) in nodes.enumerated() {
            let value = e & 0x3FFF_FFFF, parent = UInt32(i / 16)
            switch e >> 30 {
            case tagNode: if value >= nodeCount || (inNodes && value <= parent) { return false }
            case tagUnit: if value >= units { return false }
            case tagMixed: if value >= words { return false }
            default: break
            }
        }
        return true
    }

    /// A sound array of `count` nodes: each entry a random tag with a value inside its limit (a node
    /// entry a later node; the last node has none).
    static func sound(count: Int, units: UInt32, words: UInt32, _ rng: inout SplitMix64) -> [UInt32] {
        (0..<(16 * count)).map { i in
            let parent = i / 16
            var tag = UInt32(rng.next() % 4)
            if tag == tagNode && parent == count - 1 { tag = tagEmpty }
            let value: UInt32
            switch tag {
            case tagNode: value = UInt32(parent + 1) + UInt32(rng.next() % UInt64(count - parent - 1))
            case tagUnit: value = UInt32(rng.next() % UInt64(units))
            case tagMixed: value = UInt32(rng.next() % UInt64(words))
            default: value = UInt32(rng.next() & 0x3FFF_FFFF)
            }
            return tag << 30 | value
        }
    }

    static func check(_ nodes: [UInt32], inNodes: Bool = true, nodeCount: UInt32, units: UInt32, words: UInt32) -> Bool {
        nodes.withUnsafeBufferPointer { CellIndex.entriesAreValid($0, inNodes: inNodes, nodeCount: nodeCount, units: units, words: words) }
    }

    @Test func agreesWithTheRuleOnEveryChangedEntry() {
        var rng = SplitMix64(seed: 61)
        let count = 9, units: UInt32 = 300, words: UInt32 = 5_000
        let nodes = Self.sound(count: count, units: units, words: words, &rng)
        #expect(Self.reference(nodes, nodeCount: UInt32(count), units: units, words: words))
        #expect(Self.check(nodes, nodeCount: UInt32(count), units: units, words: words))
        var wrong = 0, checked = 0
        for i in nodes.indices {
            let parent = UInt32(i / 16)
            // Values at and around every limit, and the largest a value can be.
            let values: [UInt32] = [0, parent, parent + 1, UInt32(count) - 1, UInt32(count), units - 1, units, words - 1, words,
                                    0x3FFF_FFFF]
            for tag in 0..<UInt32(4) {
                for v in values {
                    var changed = nodes
                    changed[i] = tag << 30 | v
                    let want = Self.reference(changed, nodeCount: UInt32(count), units: units, words: words)
                    #expect(Self.check(changed, nodeCount: UInt32(count), units: units, words: words) == want,
                            "entry \(i) (node \(parent)) set to tag \(tag) value \(v)")
                    if !want { wrong += 1 }
                    checked += 1
                }
            }
        }
        // The changes must include both kinds, or the comparison proves little.
        #expect(wrong > checked / 4 && wrong < checked)
    }

    /// The top grid's entries have no parent: any node that exists will do, node 0 included.
    @Test func topGridEntriesAgreeWithTheRule() {
        var rng = SplitMix64(seed: 67)
        let nodeCount: UInt32 = 5, units: UInt32 = 40, words: UInt32 = 900
        let top = (0..<64).map { _ in UInt32(rng.next() % 3) == 0 ? UInt32(rng.next() % UInt64(nodeCount)) : 2 << 30 | UInt32(rng.next() & 0xFFFF) }
        #expect(Self.check(top, inNodes: false, nodeCount: nodeCount, units: units, words: words))
        var wrong = 0, checked = 0
        for i in top.indices {
            for tag in 0..<UInt32(4) {
                for v: UInt32 in [0, 1, nodeCount - 1, nodeCount, units - 1, units, words - 1, words, 0x3FFF_FFFF] {
                    var changed = top
                    changed[i] = tag << 30 | v
                    let want = Self.reference(changed, inNodes: false, nodeCount: nodeCount, units: units, words: words)
                    #expect(Self.check(changed, inNodes: false, nodeCount: nodeCount, units: units, words: words) == want,
                            "top entry \(i) set to tag \(tag) value \(v)")
                    if !want { wrong += 1 }
                    checked += 1
                }
            }
        }
        #expect(wrong > checked / 4 && wrong < checked)
        // Node 0 from the top grid is sound; from a node's own entry it is not.
        #expect(Self.check([0, 0, 0, 0], inNodes: false, nodeCount: 1, units: 1, words: 1))
        #expect(!Self.check([UInt32](repeating: 0, count: 16), inNodes: true, nodeCount: 1, units: 1, words: 1))
    }

    /// Arrays come in whole groups, four top entries or a node's sixteen (the shape check proves it);
    /// anything else is refused, not checked in part.
    @Test func aPartialGroupIsRefused() {
        let empty: UInt32 = 2 << 30
        #expect(!Self.check([UInt32](repeating: empty, count: 3), inNodes: false, nodeCount: 1, units: 1, words: 1))
        #expect(!Self.check([UInt32](repeating: empty, count: 20), inNodes: true, nodeCount: 2, units: 1, words: 1))
        #expect(Self.check([UInt32](repeating: empty, count: 32), inNodes: true, nodeCount: 2, units: 1, words: 1))
    }

    @Test func anEmptyArrayIsSound() {
        #expect(Self.check([], nodeCount: 0, units: 0, words: 0))
    }
}
