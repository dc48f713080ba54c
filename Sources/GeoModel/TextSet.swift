/// A few strings (a regions file's codes, or its names normalized), asked whether they hold a text given
/// as a String or as UTF-8 bytes, with String's equality either way: canonical equivalence, so
/// "Zu\u{308}rich" is "Zürich" and the Kelvin sign "\u{212A}" is "K".
///
/// Why bytes: a catalog that stores its texts (the engine's index cache) asks about hundreds of
/// thousands of them to select a few units, and making a String of each was most of the cost
/// (``UnitNameTest``). An ASCII text is compared as bytes, with no String made. That is exact: an ASCII
/// text equals a string exactly when each of the string's characters equals (as a `Character`) the
/// ASCII character at the same place, so each wanted string that has such an ASCII form keeps it, found
/// once here by String's own comparison. Any other text is made a String and looked up.
public struct TextSet: Sendable {
    /// The strings.
    public let strings: Set<String>
    /// The UTF-8 of the ASCII text equal to each string that has one.
    private let asciiForms: [[UInt8]]

    public init(_ strings: some Sequence<String>) {
        self.strings = Set(strings)
        asciiForms = self.strings.compactMap(Self.asciiForm(of:))
    }

    public var isEmpty: Bool { strings.isEmpty }

    /// Whether `text` is one of the strings.
    public func contains(_ text: String) -> Bool { strings.contains(text) }

    /// Whether the text `String(decoding: text, as: UTF8.self)` reads from these bytes is one of the strings.
    public func contains(utf8 text: UnsafeRawBufferPointer) -> Bool {
        containsASCII(text, foldingCase: false) ?? strings.contains(String(decoding: text, as: UTF8.self))
    }

    /// Whether the ASCII text `text`, its letters lowered first when `foldingCase` (what `lowercased()`
    /// does to an ASCII text), is one of the strings; nil when the bytes are not all ASCII.
    public func containsASCII(_ text: UnsafeRawBufferPointer, foldingCase: Bool) -> Bool? {
        for byte in text where byte >= 0x80 { return nil }
        return asciiForms.contains { form in
            form.count == text.count && zip(form, text).allSatisfy { wanted, byte in
                wanted == (foldingCase && byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte)
            }
        }
    }

    /// The UTF-8 of the ASCII text that equals `s` as a String, or nil when none does.
    static func asciiForm(of s: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        for c in s {
            // An ASCII Character may be two scalars ("\r\n"): all of its bytes.
            if c.isASCII {
                bytes += c.utf8
                continue
            }
            guard let ascii = (0..<128).first(where: { Character(Unicode.Scalar(UInt8($0))) == c }) else { return nil }
            bytes.append(UInt8(ascii))
        }
        return String(decoding: bytes, as: UTF8.self) == s ? bytes : nil
    }
}
