import HTTPServer

/// An error answered as Connections answers it: `<error xmlns="http://www.ibm.com/xmlns/prod/sn">`
/// with the HTTP status as its code. The `CLFRN…E` message ids are the emulator's (unverified).
struct LotusError: Error, Sendable {
    var status: Int
    var message: String

    static func badParameter(_ name: String, _ value: String) -> LotusError {
        LotusError(status: 400, message: "CLFRN1007E: The value '\(value)' of the parameter '\(name)' is not valid.")
    }

    static func missingParameter(_ names: String) -> LotusError {
        LotusError(status: 400, message: "CLFRN1008E: The request needs the parameter \(names).")
    }

    static let notFound = LotusError(status: 404, message: "CLFRN1005E: The requested resource was not found.")
    static let forbidden = LotusError(status: 403, message: "CLFRN1174E: You are not authorized to perform that action.")
    static let unauthorized = LotusError(status: 401, message: "CLFRN1173E: You must log in to perform that action.")
    static let badEntry = LotusError(status: 400, message: "CLFRN1009E: The request body is not a valid Atom entry.")
    static let methodNotAllowed = LotusError(status: 405, message: "CLFRN1010E: The method is not supported for this resource.")

    /// The error document, tab-indented as the recorded one.
    var body: [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <error xmlns="http://www.ibm.com/xmlns/prod/sn">
            \t<code>\(status)</code>
            \t<message>\(XMLWriter.escaped(message))</message>
            \t<trace></trace>
            </error>

            """.utf8)
    }
}

/// A request to one of the Lotus components, with what every handler needs: its parameters,
/// the base URL for links, the signed-in person and the labels' language.
struct LotusRequest {
    let request: Request
    /// `http://host[:port][prefix]` (`https://` over TLS): what links in answers start with.
    let base: String
    /// The path below the prefix, e.g. `/news/atom/stories/public`.
    let path: String
    let user: Person?
    let labels: LotusLabels
    let content: LotusContent
    let now: AtomDate

    func query(_ name: String) -> String? {
        request.query(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A whole-number parameter: absent → nil; not a number → 400.
    func integer(_ name: String) throws(LotusError) -> Int? {
        guard let text = query(name) else { return nil }
        guard let value = Int(text) else { throw .badParameter(name, text) }
        return value
    }

    /// An RFC 3339 parameter (`since`, `before`): absent → nil; malformed → 400.
    func date(_ name: String) throws(LotusError) -> AtomDate? {
        guard let text = query(name) else { return nil }
        guard let date = AtomDate(text) else { throw .badParameter(name, text) }
        return date
    }

    /// `email` or `userid` (which wins) naming a person; nil when neither is given; 404 when
    /// no one has it.
    func namedPerson() throws(LotusError) -> Person? {
        if let userid = query("userid") {
            guard let person = content.person(userid: userid) else { throw .notFound }
            return person
        }
        if let email = query("email") {
            guard let person = content.person(email: email) else { throw .notFound }
            return person
        }
        return nil
    }

    /// A link to `path` with this request's parameters, `changes` replacing or adding some
    /// (nil removes one), query-escaped.
    func link(_ path: String, _ changes: [(String, String?)] = []) -> String {
        var link = base + path
        var separator = "?"
        func add(_ name: String, _ value: String) {
            link += separator
            link += URLQuery.escape(name)
            link += "="
            link += URLQuery.escape(value)
            separator = "&"
        }
        for item in request.queryItems {
            if let value = item.value, !changes.contains(where: { $0.0 == item.name }) { add(item.name, value) }
        }
        for (name, value) in changes { if let value { add(name, value) } }
        return link
    }
}

/// Paging as the components count it: News and Profiles from page 1, Blogs from page 0; `ps`
/// bounded (100 for News, 50 for Blogs). Out-of-range values are clamped, as the documentation's
/// "maximum allowed" suggests (unverified); a value that is not a number is a 400.
struct Paging {
    let page: Int
    let size: Int
    let firstPage: Int

    init(_ request: LotusRequest, firstPage: Int, defaultSize: Int, maximumSize: Int, sizeParameter: String = "ps") throws(LotusError) {
        self.firstPage = firstPage
        page = max(firstPage, try request.integer("page") ?? firstPage)
        let requested = try request.integer(sizeParameter) ?? defaultSize
        size = requested < 1 ? defaultSize : min(requested, maximumSize)
    }

    /// The slice of `items` this page shows.
    func slice<T>(_ items: [T]) -> ArraySlice<T> {
        let start = (page - firstPage) * size
        guard start < items.count else { return [] }
        return items[start..<min(items.count, start + size)]
    }

    func lastPage(_ total: Int) -> Int { firstPage + max(0, (total - 1) / size) }

    /// `opensearch:startIndex`: 1-based for page-1 components, 0-based for Blogs.
    var startIndex: Int { firstPage == 0 ? (page * size) : (page - 1) * size + 1 }
}

/// Query-string escaping for links (RFC 3986 unreserved characters kept).
enum URLQuery {
    static func escape(_ text: String) -> String {
        // Most names and values (page, ps, source) have nothing to escape.
        guard !text.utf8.allSatisfy(isKept) else { return text }
        var out = ""
        for byte in text.utf8 {
            if isKept(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "*"):
            true
        default: false
        }
    }
}
