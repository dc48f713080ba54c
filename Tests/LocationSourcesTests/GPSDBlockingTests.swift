import Testing
import TestThreads

/// The test helper `GPSDBlocking.run` itself: its body runs off the cooperative pool, and what the body
/// records belongs to the test that called it. It ran the body on a bare `Thread`, where `Test.current`
/// was nil: a failing `#expect` there was recorded for "«unknown»" and the test showed ✔ (seen with a
/// deliberately failing check before the change; now it is this test's ✘).
struct GPSDBlockingTests {
    @Test func theBodyKnowsItsTestAndRunsOnAThreadOfItsOwn() async throws {
        let outside = try #require(Test.current).id
        let inside = await GPSDBlocking.run { (Test.current?.id, Test.Case.current != nil, DedicatedThreadExecutor.isCurrentThreadOne) }
        #expect(inside.0 == outside)
        #expect(inside.1, "Test.Case.current")
        #expect(inside.2, "not on a dedicated thread")
        #expect(!DedicatedThreadExecutor.isCurrentThreadOne)
    }
}
