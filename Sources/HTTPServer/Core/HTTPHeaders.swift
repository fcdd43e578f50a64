/// One header field as it appeared on the wire.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of header fields. Repeated names are kept as separate fields, in order; look-ups
/// by name are ASCII case-insensitive and allocate nothing.
public struct HTTPHeaders: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPHeader]

    public init(_ fields: [HTTPHeader] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPHeader { fields[position] }

    /// The header a request names its state scope with (the decoder keeps its name as this string).
    public static let scopeHeader = "X-Understudy-Scope"

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.namesEqual($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesEqual($0.name, name) }
    }

    /// Appends a field, keeping any others of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(HTTPHeader(name: name, value: value))
    }

    /// Replaces every field of `name` with one field holding `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    /// ASCII case-insensitive comparison, as header names are compared (RFC 9110 §5.1).
    public static func namesEqual(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // The same text, most often the same static string (a name the decoder knows): no byte loop.
        if a == b { return true }
        // Native strings compare on their contiguous bytes; others (bridged) byte by byte.
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in bytesEqual(x, y) }
        }
        if let fast, let result = fast { return result }
        return bytesEqual(Array(a.utf8), Array(b.utf8))
    }

    private static func bytesEqual<C: RandomAccessCollection<UInt8>>(_ x: C, _ y: C) -> Bool where C.Index == Int {
        for index in 0..<x.count {
            let p = x[x.startIndex + index]
            let q = y[y.startIndex + index]
            guard p != q else { continue }
            // Equal only as the same ASCII letter in two cases.
            let lower = p | 0x20
            guard p ^ q == 0x20, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return false }
        }
        return true
    }

    /// Fields a proxy consumes or sets anew rather than passing on (RFC 9110 §7.6.1's
    /// hop-by-hop fields, and `Host` and `Content-Length`, which the next hop's request has its own).
    public static let hopByHop = [
        "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization", "TE", "Trailer", "Transfer-Encoding", "Upgrade", "Host",
        "Content-Length",
    ]

    /// These fields without the `hopByHop` ones.
    public var withoutHopByHop: HTTPHeaders {
        HTTPHeaders(fields.filter { field in !Self.hopByHop.contains { Self.namesEqual($0, field.name) } })
    }
}
