/// Bounds on a document read from a client: its size, and the attributes of one element (libxml2
/// 2.9 checks duplicate attributes pairwise, so an element with 40,000 of them costs seconds).
public struct XMLLimits: Sendable, Equatable {
    public var maxBytes: Int
    public var maxAttributesPerElement: Int

    public init(maxBytes: Int = 8 << 20, maxAttributesPerElement: Int = 256) {
        self.maxBytes = maxBytes
        self.maxAttributesPerElement = maxAttributesPerElement
    }

    public static let standard = XMLLimits()
}
