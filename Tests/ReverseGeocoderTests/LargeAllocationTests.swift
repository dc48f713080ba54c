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
