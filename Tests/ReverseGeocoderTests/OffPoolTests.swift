import Foundation
import Testing
import TestThreads

/// The test helper `offPool` itself: its work runs off the cooperative pool, and what the work records
/// belongs to the test that called it.
struct OffPoolTests {
    /// Inside the work, Swift Testing still knows which test is running: it attributes an issue by the
    /// task-locals `Test.current` and `Test.Case.current`. On a bare thread both were nil, and a failing
    /// `#expect` there was recorded for "«unknown»" while its test showed ✔.
    @Test func theWorkKnowsItsTest() async throws {
        let outside = try #require(Test.current).id
        let inside = try await offPool { (Test.current?.id, Test.Case.current != nil) }
        #expect(inside.0 == outside)
        #expect(inside.1, "Test.Case.current")
    }

    @Test func theWorkRunsOnADedicatedThreadAndItsResultAndErrorComeBack() async throws {
        #expect(!DedicatedThreadExecutor.isCurrentThreadOne)
        #expect(try await offPool { DedicatedThreadExecutor.isCurrentThreadOne })
        struct Failure: Error, Equatable {}
        await #expect(throws: Failure.self) { try await offPool { throw Failure() } }
    }
}
