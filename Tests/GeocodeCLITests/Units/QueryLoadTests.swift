import Foundation
@testable import GeocodeCLI
import Testing

/// How each kind of command holds the index cache (``LookupFactory/options(load:environment:)``): what
/// QueryLoad's documentation promises, and what `GEOCODE_INDEX_MEMORY` overrides.
@Suite struct QueryLoadTests {
    @Test func eachLoadHoldsTheCacheAsDocumented() {
        let env = ["GEOCODE_CACHE_DIR": "/tmp/unused-cache"]
        // (copied into 2 MB pages, checked as queries read it)
        let expected: [(QueryLoad, Bool, Bool)] = [(.onePoint, false, true), (.stream, false, true), (.batch, true, false),
                                                   (.cacheOnly, false, false)]
        for (load, copy, lazy) in expected {
            let o = LookupFactory.options(load: load, environment: env)
            #expect(o.hugePages == copy, "\(load)")
            #expect(o.verifyOnFirstUse == lazy, "\(load)")
        }
        // `index` maps and checks whole: a copy would only be memory held, and its build is then read back
        // from the file instead of kept beside the next dataset's. `private` still asks for the copy.
        var shared = env, privateCopy = env
        shared[LookupFactory.indexMemoryVariable] = "shared"
        privateCopy[LookupFactory.indexMemoryVariable] = "private"
        #expect(!LookupFactory.options(load: .batch, environment: shared).hugePages)
        #expect(!LookupFactory.options(load: .batch, environment: shared).verifyOnFirstUse)
        #expect(LookupFactory.options(load: .cacheOnly, environment: privateCopy).hugePages)
        #expect(LookupFactory.options(load: .onePoint, environment: privateCopy).hugePages)
    }
}
