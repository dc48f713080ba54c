/// The names a caller selects administrative units by
/// (``AdministrativeUnitCatalog/administrativeUnits(withCode:orName:)``): a regions file's area names,
/// compared by the caller's rule (LocationKit ignores case and white space at the ends).
///
/// A catalog asks about each name either as a String or as its UTF-8 bytes, and both must answer alike
/// for the same text. The engine reads names from its index cache as bytes and asks for each of up to
/// 150 names per unit, most of which no area has: making a String of every one was the largest part of
/// `geocode track --region`'s start. A test that can tell most names apart from their bytes answers
/// ``hasName(utf8:)`` itself; the default makes the String and asks ``hasName(_:)``.
public protocol UnitNameTest {
    /// Whether `name` is one of the wanted names.
    mutating func hasName(_ name: String) -> Bool

    /// ``hasName(_:)`` of the text `String(decoding: name, as: UTF8.self)` reads from these bytes.
    mutating func hasName(utf8 name: UnsafeRawBufferPointer) -> Bool
}

extension UnitNameTest {
    public mutating func hasName(utf8 name: UnsafeRawBufferPointer) -> Bool {
        hasName(String(decoding: name, as: UTF8.self))
    }
}
