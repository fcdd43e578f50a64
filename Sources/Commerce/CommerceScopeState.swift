import Foundation
import MockCore

/// One line of a cart or an order: a SKU, how many, at what price.
struct OrderLine: Sendable, Equatable {
    var orderItemId: String
    var skuId: String
    var quantity: Int
    var unitPrice: Decimal
}

extension [OrderLine] {
    var subtotal: Decimal { reduce(0) { $0 + $1.unitPrice * Decimal($1.quantity) } }
    /// How many items, counting quantities (what the cart link shows).
    var itemCount: Int { reduce(0) { $0 + $1.quantity } }
}

/// A placed order.
struct PlacedOrder: Sendable {
    var id: String
    var lines: [OrderLine]
    var address: ShopperAddress
    var shippingMode: String
    var shipping: Decimal
    var tax: Decimal
    var placed: Date

    var subtotal: Decimal { lines.subtotal }
    var total: Decimal { subtotal + shipping + tax }
}

/// The shopper a browser session belongs to: a guest, or a registered shopper after logon.
struct ShopperSession: Sendable {
    var userId: Int
    /// What `WC_AUTHENTICATION_<userId>` must carry.
    var token: String
    /// nil for a guest.
    var logonId: String?
}

/// Everything shoppers change in one scope: registered accounts (the fixtures' and new ones),
/// sessions, carts, wish lists and orders. Undone by `POST /__admin/reset`.
struct ShoppingState: Sendable {
    var accounts: [String: Shopper] = [:]
    /// logonId (lower-cased) → user id.
    var userIds: [String: Int] = [:]
    var sessions: [Int: ShopperSession] = [:]
    var carts: [Int: [OrderLine]] = [:]
    var wishlists: [Int: [String]] = [:]
    var orders: [Int: [PlacedOrder]] = [:]
    /// Guests and new registrations get ids from 3001 (the fixture's shoppers have 2001…).
    var nextUserId = 3001
    var nextOrderId = 50001
    var nextOrderItemId = 70001

    /// Rough bytes held, for the scope list: a few hundred per account, session, line and order.
    var estimatedBytes: Int {
        (accounts.count + sessions.count) * 256 + (carts.values.reduce(0) { $0 + $1.count } + wishlists.values.reduce(0) { $0 + $1.count }) * 128
            + orders.values.reduce(0) { $0 + 512 + $1.reduce(0) { $0 + $1.lines.count * 128 } }
    }

    init(shoppers: [Shopper]) {
        for (offset, shopper) in shoppers.enumerated() {
            let key = shopper.logonId.lowercased()
            accounts[key] = shopper
            userIds[key] = 2001 + offset
        }
    }

    /// The registered shopper signed in as `userId`.
    func shopper(userId: Int) -> Shopper? {
        guard let logonId = sessions[userId]?.logonId else { return nil }
        return accounts[logonId.lowercased()]
    }

    /// A new guest with its own session.
    mutating func newGuest() -> ShopperSession {
        let session = ShopperSession(userId: nextUserId, token: Self.token(), logonId: nil)
        nextUserId += 1
        sessions[session.userId] = session
        return session
    }

    /// Logs a shopper on: a new session for the account, the guest's cart merged into theirs.
    mutating func logon(_ logonId: String, replacing guest: ShopperSession?) -> ShopperSession? {
        let key = logonId.lowercased()
        guard let userId = userIds[key] else { return nil }
        let session = ShopperSession(userId: userId, token: Self.token(), logonId: accounts[key]?.logonId)
        sessions[userId] = session
        if let guest, guest.logonId == nil, guest.userId != userId {
            for line in carts[guest.userId] ?? [] { add(skuId: line.skuId, quantity: line.quantity, unitPrice: line.unitPrice, userId: userId) }
            carts[guest.userId] = nil
            sessions[guest.userId] = nil
        }
        return session
    }

    mutating func register(_ shopper: Shopper) -> Int {
        let key = shopper.logonId.lowercased()
        accounts[key] = shopper
        let userId = nextUserId
        nextUserId += 1
        userIds[key] = userId
        return userId
    }

    mutating func add(skuId: String, quantity: Int, unitPrice: Decimal, userId: Int) {
        var cart = carts[userId] ?? []
        if let index = cart.firstIndex(where: { $0.skuId == skuId }) {
            cart[index].quantity += quantity
        } else {
            cart.append(OrderLine(orderItemId: String(nextOrderItemId), skuId: skuId, quantity: quantity, unitPrice: unitPrice))
            nextOrderItemId += 1
        }
        carts[userId] = cart
    }

    /// Sets a line's quantity; 0 removes it. False when the cart has no such item.
    mutating func update(orderItemId: String, quantity: Int, userId: Int) -> Bool {
        guard var cart = carts[userId], let index = cart.firstIndex(where: { $0.orderItemId == orderItemId }) else { return false }
        if quantity == 0 { cart.remove(at: index) } else { cart[index].quantity = quantity }
        carts[userId] = cart
        return true
    }

    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
    }
}

extension Array {
    /// The element at `index`, nil when out of range (indexes come from the request).
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// Where a scope keeps its shoppers, sessions, carts, wish lists and orders: a key into MockCore's
/// per-scope store, so each scope's shopping is made from the fixtures on first use and is undone
/// with the rest of the scope by `POST /__admin/reset`. The features reach state only through it.
struct ShoppingStateKey: Sendable {
    private let key: ScopeKey<ScopedValue<ShoppingState>>

    init(shoppers: [Shopper]) {
        key = ScopeKey { _ in
            ScopedValue {
                ShoppingState(shoppers: shoppers)
            } measure: {
                $0.estimatedBytes
            }
        }
    }

    /// Runs `body` on the scope's state, made from the fixtures on first use.
    func withState<T>(_ scope: StateScope, _ body: (inout ShoppingState) -> T) -> T {
        scope[key].withValue(body)
    }

    /// The registered shopper the request's session belongs to.
    func shopper(_ store: StoreRequest, _ scope: StateScope) -> Shopper? {
        store.session.flatMap { session in withState(scope) { $0.shopper(userId: session.userId) } }
    }
}
