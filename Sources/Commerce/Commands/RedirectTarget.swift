/// Where a command may send the browser after it ran: the `URL` parameter when it stays on this
/// server, else nothing (the command then goes to its own default view).
///
/// WebSphere Commerce guards the same parameter with the `URLRedirectFilter` of the Stores module
/// in wc-server.xml: when enabled, redirects go only to the web server's own host name and the
/// `AllowedHost`/`AllowedDomain` entries listed there. Unverified: what the real store shows for a
/// refused target (its documentation says only that the request is rejected); the emulator goes
/// to the command's default view instead, and it has no allow-list beyond the request's own Host.
enum RedirectTarget {
    /// What a command may redirect to, given the `URL` parameter and the request's `Host`:
    /// a view name (completed by the caller), a path on this server, or an absolute http(s) URL
    /// whose authority is `host`; nil for anything a browser could read as another site.
    static func allowed(_ raw: String, host: String?) -> String? {
        // Browsers drop tabs and newlines anywhere in a URL and control characters and spaces at
        // its ends (WHATWG URL): "/\t/evil.example" is "//evil.example" to them.
        let cleaned = String(String.UnicodeScalarView(raw.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }))
        let target = cleaned.trimmingPrefixAndSuffix { $0.value <= 0x20 }
        guard !target.isEmpty,
            // "\" is "/" to browsers ("/\evil.example"), and no view or path of the store has one;
            // other control characters have no place in a Location either.
            !target.unicodeScalars.contains(where: { $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        if target.hasPrefix("//") { return sameHost(authorityOf: target.dropFirst(2), host) ? target : nil }
        if target.hasPrefix("/") { return target }
        guard let colon = target.firstIndex(of: ":"), isScheme(target[..<colon]) else { return target }
        // A scheme: only http(s) with an authority ("http:evil.example" is refused too).
        let scheme = target[..<colon].lowercased()
        let rest = target[target.index(after: colon)...]
        guard scheme == "http" || scheme == "https", rest.hasPrefix("//") else { return nil }
        return sameHost(authorityOf: rest.dropFirst(2), host) ? target : nil
    }

    /// Whether an allowed target is an http(s) URL rather than a view name.
    static func isAbsolute(_ target: String) -> Bool {
        let lowered = target.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    /// A URL scheme as RFC 3986 spells it; a view name never has a ':' before its '?'.
    private static func isScheme(_ text: Substring) -> Bool {
        func isLetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        guard let first = text.unicodeScalars.first, isLetter(first) else { return false }
        return text.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
    }

    /// Whether the authority that starts `text` is exactly `host` (the request's `Host`, which
    /// has the port when it is not the default). User info is refused: "ourhost@evil.example"
    /// goes to evil.example.
    private static func sameHost(authorityOf text: Substring, _ host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        let authority = text.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return false }
        return authority.lowercased() == host.lowercased()
    }
}

extension String {
    fileprivate func trimmingPrefixAndSuffix(while predicate: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !predicate($0) }), let end = scalars.lastIndex(where: { !predicate($0) }) else { return "" }
        return String(scalars[start...end])
    }
}
