/// The escaping conventions of the systems Understudy imitates, one named value each. They
/// differ on purpose: each is the exact bytes its system sends (which quotes are escaped, and
/// as what), and clients compare those bytes.
extension TextEscaper {
    /// XML text content as libxml2 and Lotus Connections write it: `&` `<` `>`, and CR as a
    /// character reference (parsers turn a literal CR into LF). Quotes stay literal.
    public static let xmlText = TextEscaper([
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;",
    ])

    /// An XML attribute value in double quotes (Lotus Connections): `xmlText` and `"`.
    public static let xmlAttribute = TextEscaper([
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "\r": "&#13;",
    ])

    /// The three characters markup cannot hold literally, nothing else (Google's geocoding XML).
    public static let xmlMarkup = TextEscaper([
        "&": "&amp;", "<": "&lt;", ">": "&gt;",
    ])

    /// SVG text made by the Commerce storefront's product images: `&` and `<` only.
    public static let svgText = TextEscaper([
        "&": "&amp;", "<": "&lt;",
    ])

    /// HTML content and quoted attribute values of Understudy's own pages (dashboard, 404).
    public static let html = TextEscaper([
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;",
    ])

    /// PHP's `htmlspecialchars` with ENT_COMPAT (its default before 8.1): double quotes, not single.
    public static let phpSpecialChars = TextEscaper([
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;",
    ])

    /// Handlebars' escaping of `{{ }}` output (WireMock's templates, the Commerce pages).
    public static let handlebars = TextEscaper([
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#x27;", "`": "&#x60;", "=": "&#x3D;",
    ])

    /// A JSON string's content (RFC 8259): quote, backslash, the short escapes for BS, TAB, LF,
    /// FF and CR, other control characters as `\u00XX`.
    public static let json = TextEscaper([
        "\"": "\\\"", "\\": "\\\\",
        "\u{00}": "\\u0000", "\u{01}": "\\u0001", "\u{02}": "\\u0002", "\u{03}": "\\u0003",
        "\u{04}": "\\u0004", "\u{05}": "\\u0005", "\u{06}": "\\u0006", "\u{07}": "\\u0007",
        "\u{08}": "\\b", "\u{09}": "\\t", "\u{0A}": "\\n", "\u{0B}": "\\u000b",
        "\u{0C}": "\\f", "\u{0D}": "\\r", "\u{0E}": "\\u000e", "\u{0F}": "\\u000f",
        "\u{10}": "\\u0010", "\u{11}": "\\u0011", "\u{12}": "\\u0012", "\u{13}": "\\u0013",
        "\u{14}": "\\u0014", "\u{15}": "\\u0015", "\u{16}": "\\u0016", "\u{17}": "\\u0017",
        "\u{18}": "\\u0018", "\u{19}": "\\u0019", "\u{1A}": "\\u001a", "\u{1B}": "\\u001b",
        "\u{1C}": "\\u001c", "\u{1D}": "\\u001d", "\u{1E}": "\\u001e", "\u{1F}": "\\u001f",
    ])

    /// A JSON string's content as Google's geocoder writes it: every control character as `\u00XX`.
    public static let jsonUnicodeControls = TextEscaper([
        "\"": "\\\"", "\\": "\\\\",
        "\u{00}": "\\u0000", "\u{01}": "\\u0001", "\u{02}": "\\u0002", "\u{03}": "\\u0003",
        "\u{04}": "\\u0004", "\u{05}": "\\u0005", "\u{06}": "\\u0006", "\u{07}": "\\u0007",
        "\u{08}": "\\u0008", "\u{09}": "\\u0009", "\u{0A}": "\\u000a", "\u{0B}": "\\u000b",
        "\u{0C}": "\\u000c", "\u{0D}": "\\u000d", "\u{0E}": "\\u000e", "\u{0F}": "\\u000f",
        "\u{10}": "\\u0010", "\u{11}": "\\u0011", "\u{12}": "\\u0012", "\u{13}": "\\u0013",
        "\u{14}": "\\u0014", "\u{15}": "\\u0015", "\u{16}": "\\u0016", "\u{17}": "\\u0017",
        "\u{18}": "\\u0018", "\u{19}": "\\u0019", "\u{1A}": "\\u001a", "\u{1B}": "\\u001b",
        "\u{1C}": "\\u001c", "\u{1D}": "\\u001d", "\u{1E}": "\\u001e", "\u{1F}": "\\u001f",
    ])
}
