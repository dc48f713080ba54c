import Testing
@testable import ReverseGeocoder

/// Which rings the loader moves into one frame across ±180°.
struct AntimeridianTests {
    /// A ring that jumps from 179° to -179° crosses the antimeridian.
    @Test func aJumpAcrossTheDateLineIsACrossing() {
        let fiji: [Double] = [178, -17, 179.5, -17, -179.5, -16, -179.5, -18, 178, -17]
        #expect(RingAssembler.crossesAntimeridian(fiji))
    }

    /// timezone-boundary-builder's Antarctica/McMurdo goes round the South Pole: its only jump is the edge
    /// (180, -90) → (-180, -90), one point on the sphere. It is a proper polygon as it is; shifting it
    /// broke it (25 of 20,000 random points near the pole had no time zone).
    @Test func anEdgeAlongThePoleIsNoCrossing() {
        let aroundThePole: [Double] = [0, -86, 160, -86, 160, -70, 180, -70, 180, -90, -180, -90, -180, -75,
                                       -150, -75, -150, -86, 0, -86]
        #expect(!RingAssembler.crossesAntimeridian(aroundThePole))
        // The same jump away from the pole is a crossing.
        let notAtThePole: [Double] = [170, -80, 180, -80, -180, -81, -170, -81, 170, -80]
        #expect(RingAssembler.crossesAntimeridian(notAtThePole))
    }
}
