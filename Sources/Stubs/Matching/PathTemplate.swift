import Foundation

/// A `urlPathTemplate` (RFC 6570 level 1 paths, as WireMock takes them): `/users/{id}/orders`.
/// Each `{name}` stands for exactly one whole path segment.
struct PathTemplate: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case variable(String)
    }

    let source: String
    let segments: [Segment]
    /// Every literal segment is ASCII (then ASCII paths are matched as bytes).
    private let isASCII: Bool

    var variables: [String] {
        segments.compactMap { if case .variable(let name) = $0 { name } else { nil } }
    }

    init(_ source: String, field: String) throws(StubError) {
        self.source = source
        var segments: [Segment] = []
        for part in source.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                let name = String(part.dropFirst().dropLast())
                guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                    throw StubError(field: field, message: "'{\(name)}' is not a variable name")
                }
                segments.append(.variable(name))
            } else if part.contains("{") || part.contains("}") {
                throw StubError(field: field, message: "'\(part)': a variable must be a whole segment, like {id}")
            } else {
                segments.append(.literal(String(part)))
            }
        }
        guard source.hasPrefix("/") else { throw StubError(field: field, message: "must start with '/'") }
        self.segments = segments
        isASCII = source.utf8.allSatisfy { $0 < 0x80 }
    }

    /// The text every path that fits starts with: the literal segments before the first variable
    /// (`/users/` for `/users/{id}/orders`), the index's key. It stops before a segment that is
    /// not ASCII: segments compare as Swift strings, where `\u{212A}` (Kelvin) equals `K`.
    var literalPrefix: String {
        var prefix = "/"
        for (index, segment) in segments.enumerated() {
            guard case .literal(let text) = segment, text.utf8.allSatisfy({ $0 < 0x80 }) else { break }
            prefix += index == segments.count - 1 ? text : text + "/"
        }
        return prefix
    }

    /// The variables' values when `path` fits, else nil.
    func match(_ path: String) -> [(name: String, value: String)]? {
        var values: [(name: String, value: String)] = []
        if isASCII, let fits = matchASCII(path, collecting: true, into: &values) { return fits ? values : nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard parts.count == segments.count else { return nil }
        for (part, segment) in zip(parts, segments) {
            switch segment {
            case .literal(let text): guard part == text else { return nil }
            case .variable(let name):
                guard !part.isEmpty else { return nil }
                values.append((name, String(part).removingPercentEncoding ?? String(part)))
            }
        }
        return values
    }

    /// Whether `path` fits (`match` without decoding the values).
    func fits(_ path: String) -> Bool {
        var values: [(name: String, value: String)] = []
        if isASCII, let fits = matchASCII(path, collecting: false, into: &values) { return fits }
        return match(path) != nil
    }

    /// `match` over bytes, nil when `path` is not ASCII: for ASCII, splitting at "/" and comparing
    /// as Swift strings is splitting and comparing bytes (the other way costs 20,000 instructions
    /// a request).
    private func matchASCII(_ path: String, collecting: Bool, into values: inout [(name: String, value: String)]) -> Bool? {
        var path = path
        return path.withUTF8 { bytes -> Bool? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            // As `split(…).dropFirst()`: what comes before the first "/" is not a segment.
            guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return false }
            var count = 0
            var start = slash + 1
            while true {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
                guard count < segments.count else { return false }
                let part = bytes[start..<end]
                switch segments[count] {
                case .literal(let text):
                    guard text.utf8.elementsEqual(part) else { return false }
                case .variable(let name):
                    guard !part.isEmpty else { return false }
                    if collecting {
                        let raw = String(decoding: UnsafeBufferPointer(rebasing: part), as: UTF8.self)
                        values.append((name, part.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding ?? raw : raw))
                    }
                }
                count += 1
                guard end < bytes.endIndex else { break }
                start = end + 1
            }
            return count == segments.count
        }
    }
}
