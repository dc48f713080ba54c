import Foundation
import Testing
@testable import ReverseGeocoder

/// The build's large buffers: mapped and advised for huge pages from ``LargeAllocation/mappedFrom`` on,
/// malloc's below, aligned for a cache line either way, and each freed the way it was allocated.
struct LargeAllocationTests {
    /// The VmFlags of the mapping holding `address`, from /proc/self/smaps ("hg": advised for huge pages).
    static func vmFlags(of address: UnsafeRawPointer) throws -> [String]? {
        let text = String(decoding: try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps")).readToEnd() ?? Data(),
                          as: UTF8.self)
        let a = UInt(bitPattern: Int(bitPattern: address))
        var inside = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let ends = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = ends.count == 2 && ends[0] <= a && a < ends[1]
            } else if inside && line.hasPrefix("VmFlags:") {
                return fields.dropFirst().map(String.init)
            }
        }
        return nil
    }

    @Test(arguments: [1, 1000, LargeAllocation.mappedFrom / 8 - 1, LargeAllocation.mappedFrom / 8, 3_000_001])
    func aBufferHoldsWhatIsWrittenAndIsAlignedAndAdvisedBySize(_ count: Int) throws {
        let b = LargeAllocation.allocate(UInt64.self, count: count)
        defer { LargeAllocation.free(b) }
        #expect(b.count == count)
        #expect(Int(bitPattern: b.baseAddress!) % 64 == 0)
        for i in b.indices { b[i] = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 }
        #expect(b.indices.allSatisfy { b[$0] == UInt64($0) &* 0x9E37_79B9_7F4A_7C15 })
        let flags = try #require(try Self.vmFlags(of: UnsafeRawPointer(b.baseAddress!)))
        let mapped = count * 8 >= LargeAllocation.mappedFrom
        #expect(flags.contains("hg") == mapped, "\(count): \(flags)")
        if mapped {
            #expect(Int(bitPattern: b.baseAddress!) % 4096 == 0)
        }
    }

    @Test func anEmptyBufferHasABase() {
        let b = LargeAllocation.allocate(Double.self, count: 0)
        #expect(b.baseAddress != nil && b.isEmpty)
        LargeAllocation.free(b)
    }
}

/// The spare mappings' rules: the smallest spare that holds a request, cut to it; nothing past the
/// limit; all handed back by drain.
struct SpareMappingsTests {
    let page = LargeAllocation.hugePage

    @Test func aRequestTakesTheSmallestSpareThatHoldsItAndLeavesTheRest() {
        var s = SpareMappings(limit: 100 * page)
        // The calls mutate `s`, so each result is taken before it is checked.
        let kept = [
            s.keep(address: 1000 * page, length: 8 * page),
            s.keep(address: 2000 * page, length: 3 * page),
            s.keep(address: 3000 * page, length: 5 * page),
        ]
        #expect(kept == [true, true, true])
        let fourPages = s.take(length: 4 * page)
        #expect(fourPages == 3000 * page)  // from the 5 pages, not the 8
        #expect(s.list.contains(SpareMappings.Spare(address: 3004 * page, length: page)))
        let threePages = s.take(length: 3 * page)
        #expect(threePages == 2000 * page)  // an exact fit goes whole
        let ninePages = s.take(length: 9 * page)
        #expect(ninePages == nil)
        #expect(s.bytes == 9 * page)
        let eightPages = s.take(length: 8 * page)
        #expect(eightPages == 1000 * page)
        let onePage = s.take(length: page)
        #expect(onePage == 3004 * page)
        #expect(s.list.isEmpty && s.bytes == 0)
    }

    @Test func sparesThatTouchAreOneSpare() {
        var s = SpareMappings(limit: 100 * page)
        let kept = [
            s.keep(address: 1000 * page, length: 4 * page),
            s.keep(address: 1010 * page, length: 2 * page),
            s.keep(address: 1006 * page, length: 4 * page),  // joins the one above: 1006 ..< 1012
            s.keep(address: 1004 * page, length: page),  // joins the one below: 1000 ..< 1005
            s.keep(address: 1005 * page, length: page),  // closes the gap between them
        ]
        #expect(kept == [true, true, true, true, true])
        #expect(s.list == [SpareMappings.Spare(address: 1000 * page, length: 12 * page)])
        #expect(s.bytes == 12 * page)
        // No one buffer freed held 12 pages; together they do.
        let twelve = s.take(length: 12 * page)
        #expect(twelve == 1000 * page)
        #expect(s.list.isEmpty && s.bytes == 0)
        // A piece cut from a spare and freed again joins what is left of it.
        let keptAgain = s.keep(address: 2000 * page, length: 8 * page)
        let three = s.take(length: 3 * page)
        let keptPiece = s.keep(address: 2000 * page, length: 3 * page)
        #expect(keptAgain && keptPiece && three == 2000 * page)
        #expect(s.list == [SpareMappings.Spare(address: 2000 * page, length: 8 * page)])
    }

    @Test func nothingIsKeptPastTheLimitAndDrainEmptiesIt() {
        var s = SpareMappings(limit: 10 * page)
        let kept = [
            s.keep(address: 0, length: 6 * page),
            s.keep(address: 100 * page, length: 5 * page),  // 11 pages would pass the limit
            s.keep(address: 200 * page, length: 4 * page),
        ]
        #expect(kept == [true, false, true])
        let drained = s.drain()
        #expect(drained == [.init(address: 0, length: 6 * page), .init(address: 200 * page, length: 4 * page)])
        let after = s.take(length: page)
        #expect(s.list.isEmpty && s.bytes == 0 && after == nil)
    }

    /// A mapping freed and allocated again (from a spare, when no other test took it first) is still
    /// advised for huge pages and holds what is written; after releaseSpares a new one still works.
    @Test func aReusedMappingIsAdvisedAndWritable() throws {
        let count = 3 * LargeAllocation.mappedFrom / 8
        LargeAllocation.free(LargeAllocation.allocate(UInt64.self, count: count))
        let b = LargeAllocation.allocate(UInt64.self, count: count)
        for i in b.indices { b[i] = UInt64(i) }
        #expect(b.indices.allSatisfy { b[$0] == UInt64($0) })
        #expect(try #require(try LargeAllocationTests.vmFlags(of: UnsafeRawPointer(b.baseAddress!))).contains("hg"))
        LargeAllocation.free(b)
        LargeAllocation.releaseSpares()
        let c = LargeAllocation.allocate(UInt64.self, count: count)
        c[count - 1] = 7
        #expect(c[count - 1] == 7)
        LargeAllocation.free(c)
    }
}
