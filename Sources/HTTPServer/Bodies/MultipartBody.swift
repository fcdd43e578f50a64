/// One part of a `multipart/…` body (RFC 7578 / RFC 2046): its header fields and its bytes.
public struct MultipartPart: Sendable, Equatable {
    public var headers: HTTPHeaders
    public var body: [UInt8]

    /// `name` of the part's `Content-Disposition` (the form field), if any.
    public var name: String? { headers["Content-Disposition"].flatMap { MultipartBody.parameter("name", in: $0) } }
    /// `filename` of the part's `Content-Disposition` (an uploaded file), if any.
    public var fileName: String? { headers["Content-Disposition"].flatMap { MultipartBody.parameter("filename", in: $0) } }
}

/// Splits a multipart body into its parts. The bytes are the client's: anything malformed gives
/// fewer parts, never a trap, and the work is bounded (parts, header lines, boundary length).
public enum MultipartBody {
    /// More parts than this are not read (a form has a handful).
    public static let maximumParts = 1000
    static let maximumHeaderLines = 100
    /// RFC 2046 allows 70 characters.
    static let maximumBoundary = 200

    /// The parts of the request's body, or none when it is not `multipart/…` with a boundary.
    public static func parts(of request: Request) -> [MultipartPart] {
        guard let type = request.headers["Content-Type"], type.utf8.count >= 10,
            type.prefix(10).lowercased() == "multipart/",
            let boundary = parameter("boundary", in: type)
        else { return [] }
        return parts(request.body, boundary: boundary)
    }

    public static func parts(_ body: [UInt8], boundary: String) -> [MultipartPart] {
        let mark = Array(("--" + boundary).utf8)
        guard mark.count > 2, mark.count <= maximumBoundary + 2 else { return [] }
        // The first delimiter: at the start, or after a line break (anything before is preamble).
        guard var position = delimiter(mark, in: body, from: 0, atStart: true) else { return [] }
        var parts: [MultipartPart] = []
        while parts.count < maximumParts {
            position += mark.count
            // `--` after the delimiter closes the body.
            if body[position...].starts(with: [0x2D, 0x2D]) { break }
            // Transport padding, then the line break that ends the delimiter line.
            while position < body.count, body[position] == 0x20 || body[position] == 0x09 { position += 1 }
            guard let afterLine = lineEnd(in: body, at: position) else { break }
            position = afterLine
            var headers = HTTPHeaders()
            var lines = 0
            while position < body.count, lines < maximumHeaderLines {
                let end = body[position...].firstIndex(of: 0x0A) ?? body.count
                var line = body[position..<end]
                if line.last == 0x0D { line = line.dropLast() }
                position = min(end + 1, body.count)
                if line.isEmpty { break }
                lines += 1
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
                let name = String(decoding: line[..<colon], as: UTF8.self).trimmingSpaces
                let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
                if !name.isEmpty { headers.add(name, value) }
            }
            // The body runs to the line break before the next delimiter (or, unclosed, to the end).
            let next = delimiter(mark, in: body, from: position, atStart: false)
            var end = next ?? body.count
            if next != nil {
                if end > position, body[end - 1] == 0x0A { end -= 1 }
                if end > position, body[end - 1] == 0x0D { end -= 1 }
            }
            parts.append(MultipartPart(headers: headers, body: Array(body[position..<max(position, end)])))
            guard let next else { break }
            position = next
        }
        return parts
    }

    /// Where the next delimiter line starts: `mark` at the start of the body (when `atStart`) or
    /// right after a line feed.
    private static func delimiter(_ mark: [UInt8], in body: [UInt8], from start: Int, atStart: Bool) -> Int? {
        if atStart, body.starts(with: mark) { return 0 }
        var index = start
        while index < body.count {
            guard let feed = body[index...].firstIndex(of: 0x0A) else { return nil }
            if body[(feed + 1)...].starts(with: mark) { return feed + 1 }
            index = feed + 1
        }
        return nil
    }

    /// The index after a CRLF or LF at `position`, or nil when there is none.
    private static func lineEnd(in body: [UInt8], at position: Int) -> Int? {
        if body[position...].starts(with: [0x0D, 0x0A]) { return position + 2 }
        if body[position...].starts(with: [0x0A]) { return position + 1 }
        return nil
    }

    /// The value of a `; key=value` parameter of a header (`boundary` of a Content-Type, `name`
    /// of a Content-Disposition), unquoted; names compare case-insensitively.
    public static func parameter(_ key: String, in header: String) -> String? {
        var rest = Substring(header)
        // Skip the leading value (`form-data`, `multipart/form-data`).
        guard let first = rest.firstIndex(of: ";") else { return nil }
        rest = rest[rest.index(after: first)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            let name = rest.prefix { $0 != "=" && $0 != ";" }
            rest = rest.dropFirst(name.count)
            var value = ""
            if rest.first == "=" {
                rest = rest.dropFirst()
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    var escaped = false
                    while let character = rest.first {
                        rest = rest.dropFirst()
                        if escaped {
                            value.append(character)
                            escaped = false
                        } else if character == "\\" {
                            escaped = true
                        } else if character == "\"" {
                            break
                        } else {
                            value.append(character)
                        }
                    }
                    rest = rest.drop { $0 != ";" }
                } else {
                    value = String(rest.prefix { $0 != ";" }).trimmingSpaces
                    rest = rest.drop { $0 != ";" }
                }
            }
            if String(name).trimmingSpaces.lowercased() == key.lowercased() { return value }
            rest = rest.dropFirst()
        }
        return nil
    }
}
