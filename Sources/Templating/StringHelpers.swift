import Foundation

/// Text helpers: WireMock's own and Handlebars.java's StringHelpers (which WireMock registers),
/// under their names, argument orders and `key=` names.
extension TemplateHelpers {
    /// Padding, wrapping and repeating are capped: the sizes come from templates and request data.
    static let maximumTextSize = 100_000

    static let text = TemplateHelpers(
        [
            "upper": { call throws(HelperError) in .string(call.param(0).text.uppercased()) },
            "lower": { call throws(HelperError) in .string(call.param(0).text.lowercased()) },
            "capitalize": { call throws(HelperError) in
                .string(
                    call.param(0).text.split(separator: " ", omittingEmptySubsequences: false)
                        .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " "))
            },
            "capitalizeFirst": { call throws(HelperError) in
                let text = call.param(0).text
                return .string(text.prefix(1).uppercased() + text.dropFirst())
            },
            // As a block, trims its rendered body.
            "trim": { call throws(HelperError) in .string((call.block ?? call.param(0).text).trimmingCharacters(in: .whitespacesAndNewlines)) },
            "replace": { call throws(HelperError) in
                .string(call.param(0).text.replacingOccurrences(of: try call.text(1, "the text to replace"), with: call.param(2).text))
            },
            "cut": { call throws(HelperError) in
                let cut = call.params.count > 1 ? call.param(1).text : " "
                return .string(cut.isEmpty ? call.param(0).text : call.param(0).text.replacingOccurrences(of: cut, with: ""))
            },
            "substring": { call throws(HelperError) in
                let characters = Array(call.param(0).text)
                let start = max(0, min(characters.count, saturatingInt(call.param(1).numberValue ?? 0)))
                let end = max(start, min(characters.count, call.params.count > 2 ? saturatingInt(call.param(2).numberValue ?? 0) : characters.count))
                return .string(String(characters[start..<end]))
            },
            "abbreviate": { call throws(HelperError) in
                let text = call.param(0).text
                guard let width = call.param(1).numberValue.map(saturatingInt) else {
                    throw HelperError("abbreviate needs a width, e.g. {{abbreviate text 10}}")
                }
                guard text.count > width else { return .string(text) }
                guard width >= 4 else { throw HelperError("abbreviate: the width must be at least 4") }
                return .string(text.prefix(width - 3) + "...")
            },
            "center": { call throws(HelperError) in
                try padded(call) { text, pad, missing in
                    let left = missing / 2
                    return repeated(pad, left) + text + repeated(pad, missing - left)
                }
            },
            "ljust": { call throws(HelperError) in try padded(call) { text, pad, missing in text + repeated(pad, missing) } },
            "rjust": { call throws(HelperError) in try padded(call) { text, pad, missing in repeated(pad, missing) + text } },
            "slugify": { call throws(HelperError) in
                // As Handlebars.java: trimmed, lower-cased, only letters kept, each space a dash.
                let kept = call.param(0).text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().unicodeScalars.compactMap {
                    scalar -> Character? in
                    if CharacterSet.whitespacesAndNewlines.contains(scalar) { return "-" }
                    return CharacterSet.letters.contains(scalar) ? Character(scalar) : nil
                }
                return .string(String(kept))
            },
            "stripTags": { call throws(HelperError) in
                .string(call.param(0).text.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression))
            },
            "wordWrap": { call throws(HelperError) in
                guard let width = call.param(1).numberValue.map(saturatingInt) else {
                    throw HelperError("wordWrap needs a width, e.g. {{wordWrap text 40}}")
                }
                return .string(wrapped(call.param(0).text, width: max(1, width)))
            },
            "stringFormat": { call throws(HelperError) in
                .string(try JavaFormat.format(call.text(0, "a format, e.g. {{stringFormat '%s-%05d' name 42}}"), Array(call.params.dropFirst())))
            },
            "yesno": { call throws(HelperError) in
                switch call.param(0) {
                case .null: return call.hash["maybe"] ?? .string("maybe")
                case let value: return value.isTruthy ? call.hash["yes"] ?? .string("yes") : call.hash["no"] ?? .string("no")
                }
            },
            "defaultIfEmpty": { call throws(HelperError) in call.param(0).isTruthy ? call.param(0) : call.param(1) },

            // As a block, encodes (or decodes) its rendered body.
            "base64": { call throws(HelperError) in
                let text = call.block ?? call.param(0).text
                if call.hash["decode"]?.isTruthy == true {
                    // Padding may be left off (WireMock decodes `aGVsbG8` too).
                    let digits = text.utf8.filter { byte in
                        switch byte {
                        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                            UInt8(ascii: "+"), UInt8(ascii: "/"):
                            true
                        default: false
                        }
                    }
                    let padding = [UInt8](repeating: UInt8(ascii: "="), count: (4 - digits.count % 4) % 4)
                    guard let data = Data(base64Encoded: Data(digits + padding)) else {
                        throw HelperError("base64: not base64 text")
                    }
                    return .string(String(decoding: data, as: UTF8.self))
                }
                var encoded = Data(text.utf8).base64EncodedString()
                if call.hash["padding"].map({ !$0.isTruthy }) == true { encoded = encoded.replacingOccurrences(of: "=", with: "") }
                return .string(encoded)
            },
            "urlEncode": { call throws(HelperError) in
                let text = call.param(0).text
                if call.hash["decode"]?.isTruthy == true { return .string(formDecoded(text)) }
                // As Java's URLEncoder: form encoding, space as '+'.
                var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
                allowed.insert(charactersIn: "-_.* ")
                let encoded = text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
                return .string(encoded.replacingOccurrences(of: " ", with: "+"))
            },

            "matches": { call throws(HelperError) in
                .bool(try regex(call.text(1, "a pattern")).wholeMatch(call.text(0, "a value")) != nil)
            },
            // `{{regexExtract text pattern}}` prints the first match; with a variable name it prints
            // nothing and makes the match's groups readable as `name.0`, `name.1`…
            "regexExtract": { call throws(HelperError) in
                let text = try call.text(0, "a value")
                let pattern = try call.text(1, "a pattern")
                guard let groups = try regex(pattern).firstMatchGroups(text) else {
                    if let fallback = call.hash["default"] { return fallback }
                    throw HelperError("Nothing matched \(pattern)")
                }
                guard call.params.count > 2 else { return .string(groups[0]) }
                call.assign(call.param(2).text, .object(.listOrSingle(Array(groups.dropFirst()))))
                return .string("")
            },
            // `{{formData request.body 'form'}}`: the form's fields as `form.name` (a list-or-single
            // for repeated names), raw unless `urlDecode=true`.
            "formData": { call throws(HelperError) in
                let name = try call.text(1, "a variable name, e.g. {{formData request.body 'form'}}")
                let decode = call.hash["urlDecode"]?.isTruthy == true
                var order: [String] = []
                var values: [String: [String]] = [:]
                for field in call.param(0).text.split(separator: "&") {
                    let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let key = decode ? formDecoded(String(parts[0])) : String(parts[0])
                    let value = parts.count > 1 ? String(parts[1]) : ""
                    if values[key] == nil { order.append(key) }
                    values[key, default: []].append(decode ? formDecoded(value) : value)
                }
                call.assign(name, .object(TemplateObject(order.map { ($0, .object(.listOrSingle(values[$0] ?? []))) })))
                return .string("")
            },
            // `{{#assign 'name'}}…{{/assign}}`: the body, trimmed, as `{{name}}` from then on.
            "assign": { call throws(HelperError) in
                call.assign(
                    try call.text(0, "a variable name, e.g. {{#assign 'name'}}…{{/assign}}"),
                    .string((call.block ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))
                return .string("")
            },
        ], takingBlocks: ["trim", "base64", "assign"], assigning: ["assign", "regexExtract", "formData"])

    /// `center`, `ljust` and `rjust`: `size=` (required) and `pad=` (default a space, repeated as
    /// needed); text already as long is returned as it is.
    private static func padded(_ call: HelperCall, _ layout: (String, String, Int) -> String) throws(HelperError) -> TemplateValue {
        guard let size = call.hash["size"]?.numberValue.map(saturatingInt) else {
            throw HelperError("\(call.name) needs size=, e.g. {{\(call.name) text size=10}}")
        }
        guard size <= maximumTextSize else { throw HelperError("\(call.name): size must be at most \(maximumTextSize)") }
        let text = call.param(0).text
        let pad = call.hash["pad"]?.text ?? " "
        guard !pad.isEmpty, text.count < size else { return .string(text) }
        return .string(layout(text, pad, size - text.count))
    }

    /// `count` characters of `pad` repeated.
    private static func repeated(_ pad: String, _ count: Int) -> String {
        String(String(repeating: pad, count: count / pad.count + 1).prefix(count))
    }

    /// Lines of at most `width` characters, broken at spaces; a longer word stays whole on its own
    /// line (as commons-lang's `WordUtils.wrap`, which WireMock uses).
    static func wrapped(_ text: String, width: Int) -> String {
        var lines: [Substring] = []
        var rest = Substring(text)
        while rest.count > width {
            guard let space = rest.prefix(width + 1).lastIndex(of: " ") ?? rest.firstIndex(of: " ") else { break }
            lines.append(rest[..<space])
            rest = rest[space...].drop { $0 == " " }
        }
        lines.append(rest)
        return lines.joined(separator: "\n")
    }

    /// Form decoding: `+` is a space, then percent-escapes.
    static func formDecoded(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
