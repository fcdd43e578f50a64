import HTTPServer
import MockCore
import Templating

/// The cart and what follows it: the shipping address, the order summary, and the placed orders.
/// All but the cart are for a signed-in shopper (the caller checks).
struct CheckoutPages: Sendable {
    let renderer: PageRenderer
    let values: StoreValues
    let shopping: ShoppingStateKey

    /// `mOrderItemDisplay`: lines, quantities, subtotal.
    func cart(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let lines = store.session.map { session in shopping.withState(context.scope) { $0.carts[session.userId] ?? [] } } ?? []
        var members = values.orderValues(lines, store.language)
        if let message = store["errorMessage"] { members.append(("error", .string(message))) }
        return renderer.page("OrderItemDisplay", store, scope: context.scope, title: renderer.label("cart", store.language), members)
    }

    /// `mOrderBillingAddressSelection`: choose a shipping address (the cart when it is empty).
    func address(_ store: StoreRequest, _ context: RequestContext, _ session: ShopperSession) -> Response {
        let (lines, shopper) = shopping.withState(context.scope) { ($0.carts[session.userId] ?? [], $0.shopper(userId: session.userId)) }
        guard !lines.isEmpty else { return cart(store, context) }
        return renderer.page(
            "OrderBillingAddressSelection", store, scope: context.scope, title: renderer.label("checkout", store.language),
            [
                ("addresses", .array((shopper?.addresses ?? []).enumerated().map { values.addressValue($0.element, index: $0.offset) }))
            ] + values.orderValues(lines, store.language))
    }

    /// `mOrderShippingBillingSummaryView`: lines, shipping, tax and total to `addressIndex`.
    func summary(_ store: StoreRequest, _ context: RequestContext, _ session: ShopperSession) -> Response {
        let (lines, shopper) = shopping.withState(context.scope) { ($0.carts[session.userId] ?? [], $0.shopper(userId: session.userId)) }
        guard !lines.isEmpty else { return cart(store, context) }
        let index = Int(store.text("addressIndex")) ?? 0
        guard let address = shopper?.addresses[safe: index] else {
            return renderer.errorPage(store, message: renderer.label("errorNoAddress", store.language), scope: context.scope)
        }
        let charges = Charges(lines: lines)
        return renderer.page(
            "OrderShippingBillingSummary", store, scope: context.scope, title: renderer.label("orderSummary", store.language),
            [
                ("address", values.addressValue(address, index: index)),
                ("shipping", .string(Money.plain(charges.shipping))),
                ("tax", .string(Money.plain(charges.tax))),
                ("grandTotal", .string(Money.plain(charges.total))),
            ] + values.orderValues(lines, store.language))
    }

    /// `mOrderHistory`: the shopper's orders, newest first.
    func history(_ store: StoreRequest, _ context: RequestContext, _ session: ShopperSession) -> Response {
        let orders = shopping.withState(context.scope) { $0.orders[session.userId] ?? [] }
        return renderer.page(
            "OrderHistory", store, scope: context.scope, title: renderer.label("orderHistory", store.language),
            [
                ("orders", .array(orders.reversed().map { values.placedOrderValue($0, store.language) }))
            ])
    }

    /// `mOrderDetails` and `mOrderShippingBillingConfirmationView` (with the confirmation message)
    /// of `orderId`.
    func order(_ store: StoreRequest, _ context: RequestContext, _ session: ShopperSession) -> Response {
        let id = store.text("orderId")
        guard let order = shopping.withState(context.scope, { $0.orders[session.userId]?.first { $0.id == id } }) else {
            return renderer.errorPage(
                store, message: renderer.label("errorNoOrder", store.language) + PageRenderer.naming("orderId", id),
                scope: context.scope)
        }
        return renderer.page(
            "OrderDetails", store, scope: context.scope, title: renderer.label("order", store.language) + " " + order.id,
            [
                ("order", values.placedOrderValue(order, store.language)),
                ("confirmation", .bool(store.request.path.hasSuffix("ConfirmationView"))),
            ])
    }
}
