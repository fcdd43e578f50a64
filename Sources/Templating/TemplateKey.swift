import WireFormat

/// A member name with a hash of its bytes made once: a template's path names are hashed when the
/// template is parsed and an object's names when it is made, so finding a member compares
/// integers and then one name, instead of hashing the name on every lookup.
///
/// Swift compares names by canonical equivalence (`"\u{212A}"`, the Kelvin sign, equals `"K"`),
/// which a hash of bytes does not follow: names with a byte outside ASCII get no hash
/// (`hash == nil`) and are compared as names, so a lookup finds exactly what `==` finds.
struct TemplateKey: Sendable {
    let name: String
    let hash: UInt64?

    init(_ name: String) {
        self.name = name
        var bytes = name
        // Over the contiguous bytes (a short name's are copied out of the String value).
        hash = bytes.withUTF8 { utf8 in utf8.allSatisfy { $0 < 0x80 } ? FNV1a.hash(utf8) : nil }
    }
}
