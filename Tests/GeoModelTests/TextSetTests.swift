import GeoModel
import Testing

/// `TextSet` answers a text given as UTF-8 bytes as `Set<String>.contains` answers the String those
/// bytes read as: String's equality, canonical equivalence included, although an ASCII text is compared
/// as bytes. The oracle is the Set itself, over texts that are ASCII, canonically equal to ASCII
/// without being ASCII (the Kelvin sign is K, the Greek question mark is ";"), decomposed, and not
/// valid UTF-8.
@Suite struct TextSetTests {
    static let wanted = ["DE-BE", "110000", "Zürich", "\u{212A}iel", "a;b", "x\u{37E}y", "CR\r\nLF", "東京都", "e\u{301}", ""]
    static let texts: [[UInt8]] = {
        let strings = ["DE-BE", "de-be", "DE-BE ", "110000", "11000", "Zürich", "Zu\u{308}rich", "Zurich", "Kiel", "kiel", "\u{212A}iel",
                       "a;b", "a\u{37E}b", "x;y", "x\u{37E}y", "CR\r\nLF", "CR\nLF", "東京都", "é", "e\u{301}", "e", "", "K", "\u{212A}"]
        return strings.map { Array($0.utf8) } + [[0xFF], [0x44, 0x45, 0xFF], [0xC3], Array("Z".utf8) + [0xC3, 0xBC] + Array("rich".utf8)]
    }()

    @Test func bytesAreAnsweredAsTheStringTheyReadAs() {
        let set = TextSet(Self.wanted), oracle = Set(Self.wanted)
        var hits = 0
        for text in Self.texts {
            let string = String(decoding: text, as: UTF8.self)
            let expected = oracle.contains(string)
            #expect(text.withUnsafeBytes { set.contains(utf8: $0) } == expected, "\(text) \(string.debugDescription)")
            #expect(set.contains(string) == expected)
            if expected { hits += 1 }
        }
        #expect(hits >= 10, "the ASCII forms of non-ASCII wanted texts are found: Kiel, a;b, x;y")
    }

    /// Folding case lowers ASCII letters of the text only, as `lowercased()` does an ASCII text.
    @Test func foldingCaseLowersTheTextsASCIILetters() {
        let set = TextSet(["berlin", "\u{212A}iel".lowercased(), "a-z"])
        func folded(_ s: String) -> Bool? { Array(s.utf8).withUnsafeBytes { set.containsASCII($0, foldingCase: true) } }
        #expect(folded("BERLIN") == true && folded("Berlin") == true && folded("KIEL") == true && folded("A-Z") == true)
        #expect(folded("BERLIN ") == false && folded("[erlin") == false, "only A to Z are lowered")
        #expect(folded("Zürich") == nil, "not ASCII: the caller makes a String")
        #expect(Array("BERLIN".utf8).withUnsafeBytes { set.containsASCII($0, foldingCase: false) } == false)
    }
}
