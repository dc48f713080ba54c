@testable import GeocodeCLI
import Testing

@Suite struct DecimalNumberTests {
    @Test(arguments: [("12.5", 12.5), ("-33.86", -33.86), ("+1e3", 1000), (".5", 0.5), ("5.", 5), (" 7 ", 7),
                      ("\t-0\t", 0), ("1E-2", 0.01), ("151.2000000000000001", 151.2)])
    func accepts(_ text: String, _ value: Double) {
        #expect(DecimalNumber.parse(text) == value)
    }

    @Test(arguments: ["", " ", "abc", "NaN", "nan", "inf", "-Infinity", "0x1p3", "1,5", "1.2.3", "1e", "--1", "+", ".", "1 2", "12abc"])
    func rejects(_ text: String) {
        #expect(DecimalNumber.parse(text) == nil)
    }

    @Test func overflowIsInfiniteNotAnError() {
        // The grammar is fine; range checks later call it "not a finite number".
        #expect(DecimalNumber.parse("1e400") == .infinity)
    }

    @Test func fastPathIsBitIdenticalToStrtod() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<30_000 {
            let digits = Int.random(in: 1...15, using: &generator)
            let mantissa = UInt64.random(in: 0..<(0..<digits).reduce(UInt64(1)) { x, _ in x * 10 }, using: &generator)
            var text = String(mantissa)
            let point = Int.random(in: 0...text.count, using: &generator)
            text.insert(".", at: text.index(text.startIndex, offsetBy: point))
            if Bool.random(using: &generator) { text = "-" + text }
            if text.hasSuffix(".") && text.dropLast().isEmpty { continue }
            #expect(DecimalNumber.parse(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }
}
