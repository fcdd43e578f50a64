import MockCore

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
