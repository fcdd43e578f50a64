/// A value handed to another thread or loop that the compiler cannot prove safe to send: a C
/// pointer kept in a lock-protected table, a reply carried through a work queue and used again
/// only on its own loop, an object retained across a hop. The one escape hatch for such hand-overs
/// (as SwiftNIO's and Hummingbird's `UnsafeTransfer`): whoever makes one promises that the value
/// is used by one thread at a time, and says why where it is made.
public struct UnsafeTransfer<Wrapped>: @unchecked Sendable {
    public let wrappedValue: Wrapped

    @inlinable
    public init(_ wrappedValue: Wrapped) {
        self.wrappedValue = wrappedValue
    }
}
