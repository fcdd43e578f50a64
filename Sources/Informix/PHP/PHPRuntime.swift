import WireFormat

/// The PHP the web services ran on, in the ways that show in their answers. The seed's scripts
/// are from 2011 (PHP 5.3, whose magic_quotes_gpc the article discusses), so 5.3 is the default.
struct PHPRuntime: Sendable, Equatable {
    enum Version: String, Sendable, CaseIterable {
        /// PHP 5.3 with the libxml2 2.7 of its day.
        case php53 = "5.3"
        /// PHP 5.6 to 7.4: UTF-8 everywhere, PDO still silent by default.
        case php7 = "7"
        /// PHP 8.1 and later: PDO throws by default, htmlentities also escapes single quotes.
        case php8 = "8"
    }

    var version = Version.php53
    /// php.ini-development (errors shown in the page, HTTP 200) or php.ini-production (HTTP
    /// 500 on a fatal error, nothing shown; the message goes to the server's log).
    var displayErrors = false
    /// Old PHP's magic_quotes_gpc: backslashes before quotes and backslashes in POST fields.
    var magicQuotesGPC = false
    /// Where the scripts live, for the file names in PHP's messages.
    var documentRoot = "/var/www/html"

    var poweredBy: String {
        switch version {
        case .php53: "PHP/5.3.29"
        case .php7: "PHP/7.4.33"
        case .php8: "PHP/8.1.2"
        }
    }

    /// default_charset: empty before 5.6, so no charset is added to content types.
    var defaultCharset: String? { version == .php53 ? nil : "UTF-8" }

    /// The Content-Type PHP sends for `header("Content-Type: <type>")`: 5.6+ appends its
    /// default charset to text/* types, without a space.
    func contentType(_ type: String) -> String {
        guard let defaultCharset, type.hasPrefix("text/") else { return type }
        return type + ";charset=" + defaultCharset
    }

    /// The Content-Type when a script sets none.
    var defaultContentType: String {
        defaultCharset.map { "text/html; charset=\($0)" } ?? "text/html"
    }

    /// PDO's default error mode throws from PHP 8 on.
    var pdoThrowsByDefault: Bool { version == .php8 }

    /// libxml2 2.7 writes an element given an empty value as `<a></a>`; later versions `<a/>`.
    var emptyValueSelfCloses: Bool { version != .php53 }

    /// A message PHP shows (with display_errors) or only logs: `Warning`, `Notice`, `Fatal error`.
    func message(_ kind: String, _ text: String, file: String, line: Int) -> String {
        "<br />\n<b>\(kind)</b>:  \(text) in <b>\(documentRoot)\(file)</b> on line <b>\(line)</b><br />\n"
    }

    /// The fatal error of calling a method on what `query()` returned after it failed silently.
    func nonObjectCall(_ method: String) -> String {
        version == .php53
            ? "Call to a member function \(method)() on a non-object"
            : "Uncaught Error: Call to a member function \(method)() on bool"
    }

    /// The fatal error of an uncaught PDOException thrown by `call` (e.g. `PDO->query('…')`).
    func uncaughtException(_ message: String, file: String, line: Int, call: String, argument: String) -> String {
        let path = documentRoot + file
        // PHP cuts string arguments in stack traces at 15 bytes.
        let shown = argument.utf8.count > 15 ? String(decoding: Array(argument.utf8.prefix(15)), as: UTF8.self) + "..." : argument
        if version == .php53 {
            return
                "Uncaught exception 'PDOException' with message '\(message)' in \(path):\(line)\nStack trace:\n#0 \(path)(\(line)): \(call)('\(shown)')\n#1 {main}\n  thrown"
        }
        return "Uncaught PDOException: \(message) in \(path):\(line)\nStack trace:\n#0 \(path)(\(line)): \(call)('\(shown)')\n#1 {main}\n  thrown"
    }

    /// A displayed fatal error's text is HTML-escaped (ENT_COMPAT) before it is shown.
    static func escapeForDisplay(_ text: String) -> String {
        TextEscaper.phpSpecialChars.escaped(text)
    }
}

/// `$_POST` as PHP builds it from an `application/x-www-form-urlencoded` body: split at `&`
/// (an unencoded `&` inside a value splits it: the seed's "special characters" limitation),
/// `+` and `%XX` decoded, spaces and dots in names made `_`, the last of repeated names wins,
/// and with magic_quotes_gpc quotes and backslashes escaped.
enum PHPForm {
    static func parse(_ body: [UInt8], runtime: PHPRuntime) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                name = pair[..<equals]
                value = pair[(equals + 1)...]
            } else {
                // PHP 5.3 drops a field without "="; later versions keep it as "".
                guard runtime.version != .php53 else { continue }
                name = pair[...]
                value = []
            }
            var key = decode(name)
            while key.hasPrefix(" ") { key.removeFirst() }
            // Before the first "[", PHP turns spaces and dots into underscores; "a[b]" makes an
            // array, which these scripts cannot use as a string.
            // (Foundation's search, which matches whole characters; a name without the bytes
            // cannot match, and most names have none of them.)
            let bytes = key.utf8
            if bytes.contains(UInt8(ascii: "[")) && key.contains("[") && key.contains("]") { continue }
            if bytes.contains(UInt8(ascii: " ")) || bytes.contains(UInt8(ascii: ".")) {
                key = String(key.map { $0 == " " || $0 == "." ? "_" : $0 })
            }
            guard !key.isEmpty else { continue }
            var text = decode(value)
            if runtime.magicQuotesGPC { text = addSlashes(text) }
            fields[runtime.magicQuotesGPC ? addSlashes(key) : key] = text
        }
        return fields
    }

    /// php_url_decode: `+` is a space; `%XX` with two hex digits is a byte, otherwise literal.
    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// addslashes: `'`, `"` and `\` get a backslash, NUL becomes `\0`.
    static func addSlashes(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "'", "\"", "\\": out += "\\" + String(character)
            case "\0": out += "\\0"
            default: out.append(character)
            }
        }
        return out
    }
}
