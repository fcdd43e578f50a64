import HTTPServer

/// How a request names its scope: the header `X-Understudy-Scope: NAME`, or the path prefix
/// `/__scope/NAME/…` (for clients whose only setting is a base URL), or through device mode's proxy
/// the user name of its credentials (`ProxyCredentials`), or — on admin calls only — the query
/// parameter `scope=NAME`. None of them: `default`. Two that disagree are refused.
public enum ScopeSelection {
    static let header = HTTPHeaders.scopeHeader
    static let pathPrefix = "/__scope/"
    static let maxNameLength = 64

    /// Why `name` cannot name a scope, or nil when it can: 1 to 64 letters, digits, `.`, `_`
    /// and `-`, starting with a letter or digit (so it is safe in a path and a file name).
    public static func problem(with name: String) -> String? {
        let count = name.utf8.count
        guard count > 0 else { return "the scope name is empty" }
        guard count <= maxNameLength else {
            let shown = String(decoding: name.utf8.prefix(maxNameLength), as: UTF8.self) + "…"
            return "the scope name \"\(shown)\" has \(count) bytes; at most \(maxNameLength) are allowed"
        }
        // Every request that names a scope is checked: its bytes are read in place, not copied.
        for (index, byte) in name.utf8.enumerated() {
            let isAlphanumeric = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
            if index == 0 && !isAlphanumeric {
                return "the scope name \"\(name)\" must start with a letter or a digit"
            }
            guard isAlphanumeric || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") else {
                return "the scope name \"\(name)\" has a character other than letters, digits, '.', '_' and '-' at position \(index + 1)"
            }
        }
        return nil
    }

    /// What a request says about its scope, before the admin query is looked at.
    struct Named {
        /// The name given, nil for none.
        var name: String?
        /// `/__scope/NAME` when the path carried it (now taken off the request), else "".
        var basePath = ""
    }

    /// Reads the header and the path prefix, and takes the prefix off `request`'s path and target;
    /// `proxyScope` is what the proxy credentials named. Throws the reason when a name is bad or
    /// two disagree.
    static func read(_ request: inout Request, proxyScope: String? = nil) throws(ScopeRefusal) -> Named {
        var named = Named()
        // Most paths differ at their second byte: tested first, without a generic comparison.
        let path = request.path.utf8
        if path.count >= pathPrefix.utf8.count, path[path.index(after: path.startIndex)] == UInt8(ascii: "_"), path.starts(with: pathPrefix.utf8) {
            let rest = request.path.utf8.dropFirst(pathPrefix.utf8.count)
            let nameEnd = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let name = String(Substring(request.path.utf8[rest.startIndex..<nameEnd]))
            if let problem = problem(with: name) { throw ScopeRefusal("\(problem) (in the path prefix \(pathPrefix)NAME/)") }
            named = Named(name: name, basePath: pathPrefix + name)
            strip(named.basePath, from: &request)
        }
        if let header = headerValue(request.headers) {
            if let problem = problem(with: header) { throw ScopeRefusal("\(problem) (in the \(Self.header) header)") }
            if let fromPath = named.name, fromPath != header {
                throw ScopeRefusal("the path names the scope \"\(fromPath)\" and the \(Self.header) header \"\(header)\": name one")
            }
            named.name = header
        }
        if let proxyScope {
            if let given = named.name, given != proxyScope {
                throw ScopeRefusal("the proxy credentials name the scope \"\(proxyScope)\" and the request \"\(given)\": name one")
            }
            named.name = proxyScope
        }
        return named
    }

    /// The header's first value. Runs for every request: names of another length are passed over
    /// without a call.
    private static func headerValue(_ headers: HTTPHeaders) -> String? {
        let fields = headers.fields
        for index in fields.indices where fields[index].name.utf8.count == headerLength && HTTPHeaders.namesEqual(fields[index].name, header) {
            return fields[index].value
        }
        return nil
    }

    private static let headerLength = header.utf8.count

    /// The admin API's `?scope=NAME` (`*` means every scope and names none), checked against the
    /// name the request already gave.
    static func adminQueryName(_ request: Request, given: String?) throws(ScopeRefusal) -> String? {
        guard request.rawQuery != nil, let query = request.query("scope"), query != "*" else { return given }
        if let problem = problem(with: query) { throw ScopeRefusal("\(problem) (in the query parameter scope)") }
        if let given, given != query {
            throw ScopeRefusal("the request names the scope \"\(given)\" and the query parameter scope \"\(query)\": name one")
        }
        return query
    }

    /// `/__scope/NAME/x?y` → `/x?y` (also in an absolute-form target); `/__scope/NAME` → `/`.
    private static func strip(_ basePath: String, from request: inout Request) {
        let remainder = request.path.utf8.dropFirst(basePath.utf8.count)
        request.path = remainder.isEmpty ? "/" : String(Substring(remainder))
        if let range = request.target.firstRange(of: basePath) {
            let after = request.target[range.upperBound...]
            let needsSlash = after.isEmpty || after.first == "?" || after.first == "#"
            request.target.replaceSubrange(range, with: needsSlash ? "/" : "")
        } else {
            // The prefix was percent-encoded in the target: rebuild it from what was decoded.
            request.target = request.path + (request.rawQuery.map { "?" + $0 } ?? "")
        }
    }
}

/// Why a request's scope was refused: answered 400 with this text.
struct ScopeRefusal: Error {
    let message: String
    init(_ message: String) { self.message = message }

    var response: Response {
        .text(
            "Bad scope: \(message).\n"
                + "Name a scope with the header \(ScopeSelection.header): NAME or the path prefix \(ScopeSelection.pathPrefix)NAME/.\n", status: 400)
    }
}
