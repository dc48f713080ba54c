import Testing
@testable import LocationSources

/// Inputs the libFuzzer harnesses in `Tests/Fuzz` found, each kept here as it was found so the bug stays
/// fixed. (`Tests/Fuzz/run.sh repro HARNESS FILE` replays a saved input under the fuzzer build.)
struct NMEARegressionTests {
    /// fuzz-nmea: a longitude field holding only "." was read as 0°, so this GLL put the receiver on the
    /// Greenwich meridian (4.07°N, 0°) instead of being refused. A field with no digit carries no value.
    @Test func angleWithoutAnyDigitIsInvalid() {
        let found = "$GPGLL,404,N,.,W,,A,\n"   // as found: no checksum, so the lenient parser
        #expect(throws: NMEAParseError.invalidField(sentence: "GPGLL", index: 3)) {
            try NMEAParser(options: .lenient).parse(found)
        }
        #expect(throws: NMEAParseError.invalidField(sentence: "GPGLL", index: 3)) {
            try NMEAParser().parse(NMEAChecksum.sentence("GPGLL,404,N,.,W,,A,"))
        }
        #expect(throws: NMEAParseError.invalidField(sentence: "GPGLL", index: 1)) {
            try NMEAParser().parse(NMEAChecksum.sentence("GPGLL,.,N,00001.0,W,,A,"))
        }
        // Zero written with digits is still a (zero-filled) zero, as before.
        #expect((try? NMEAParser().parse(NMEAChecksum.sentence("GPGLL,0000.0,N,00001.0,W,,A,")))?.fixCoordinate != nil)
    }
}
