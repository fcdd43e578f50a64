extension ContentPattern.Regex {
    /// The text that every string the expression matches (whole, as `matches` does) starts with:
    /// `/api/users/` for `/api/users/[0-9]+`. The engine's index tries the expression only on
    /// requests that start with it. When in doubt it is shorter, down to "" (no index): it must
    /// never leave out a string the expression matches.
    var literalPrefix: String { Self.literalPrefix(of: source) }

    static func literalPrefix(of source: String) -> String {
        let scalars = Array(source.unicodeScalars)
        guard isPlainlyStructured(scalars) else { return "" }
        var prefix = String.UnicodeScalarView()
        // Outside multi-line mode (never set here: flags bail out above) `^` is the start of the input.
        var index = scalars.first == "^" ? 1 : 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\" {
                guard index + 1 < scalars.count, isQuotable(scalars[index + 1]) else { break }
                prefix.append(scalars[index + 1])
                index += 2
            } else if metacharacters.contains(scalar) {
                break
            } else {
                prefix.append(scalar)
                index += 1
            }
        }
        // A quantifier applies to the last character: `/items?` may end before the `s`.
        if index < scalars.count, quantifiers.contains(scalars[index]), !prefix.isEmpty {
            prefix.removeLast()
        }
        return String(prefix)
    }

    private static let metacharacters: Set<Unicode.Scalar> = [".", "[", "]", "(", ")", "|", "*", "+", "?", "{", "}", "^", "$", "\\"]
    private static let quantifiers: Set<Unicode.Scalar> = ["*", "+", "?", "{"]

    /// `\.` stands for `.`: a backslash before ASCII punctuation quotes it (before a letter or a
    /// digit it means a class, an anchor or a back-reference).
    private static func isQuotable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && scalar.properties.isPatternSyntax
    }

    /// Whether the expression is one sequence from start to end, so that what it starts with is
    /// what every match starts with: parentheses balanced (a stray `)` would close the engine's
    /// own `^(?:…)$` wrapper), no `|` outside a group, and none of the syntax that changes how
    /// the rest reads (flags such as `(?i)` or `(?x)`, comments, `\Q…\E` quoting, `\cX`).
    private static func isPlainlyStructured(_ scalars: [Unicode.Scalar]) -> Bool {
        var depth = 0
        var classDepth = 0
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            if scalar == "\\" {
                guard let next, next != "Q", next != "E", next != "c" else { return false }
                index += 2
                // `\p{…}`, `\N{…}`, `\x{…}`: their braces hold names, skipped whole.
                if index < scalars.count, scalars[index] == "{", ["p", "P", "N", "x"].contains(next) {
                    guard let close = scalars[index...].firstIndex(of: "}") else { return false }
                    index = close + 1
                }
                continue
            }
            index += 1
            if classDepth > 0 {
                if scalar == "[" { classDepth += 1 } else if scalar == "]" { classDepth -= 1 }
                continue
            }
            switch scalar {
            case "[":
                classDepth = 1
                if index < scalars.count, scalars[index] == "^" { index += 1 }
                // `[]…]` and `[^]…]` read differently between engines: not worth the doubt.
                if index < scalars.count, scalars[index] == "]" { return false }
            case "(":
                if next == "?" {
                    guard index + 1 < scalars.count, [":", "=", "!", "<", ">"].contains(scalars[index + 1]) else { return false }
                }
                depth += 1
            case ")":
                depth -= 1
                if depth < 0 { return false }
            case "|" where depth == 0:
                return false
            default:
                break
            }
        }
        return depth == 0 && classDepth == 0
    }
}
