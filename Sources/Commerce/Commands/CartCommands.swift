import Foundation
import HTTPServer
import MockCore

/// The commands that fill the cart and place it as an order: `OrderChangeServiceItemAdd`,
/// `…ItemUpdate`, `…ItemDelete` and `OrderProcessServiceOrderSubmit`.
struct CartCommands: Sendable {
    let catalog: CommerceCatalog
    let shopping: ShoppingStateKey
    let replies: CommandReplies

    func add(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let entry = store["catEntryId"] ?? store["catEntryId_1"] ?? store["productId"] ?? ""
        guard let item = catalog.item(entry) else {
            return replies.failure(store, context, replies.label("errorNoProduct", store.language) + PageRenderer.naming("catEntryId", entry))
        }
        // A product with several SKUs: the one its defining attributes name.
        var sku = item.sku
        if item.product.skus.count > 1, item.sku.id == item.product.skus[0].id, entry == item.product.id {
            let chosen = item.product.attributes.compactMap { attribute in store["attrValue_\(attribute.name)"].map { (attribute.name, $0) } }
            guard chosen.count == item.product.attributes.count,
                let match = item.product.skus.first(where: { sku in chosen.allSatisfy { sku.attributes[$0.0] == $0.1 } })
            else {
                return replies.failure(store, context, replies.label("errorChooseAttributes", store.language))
            }
            sku = match
        }
        let quantityText = store["quantity"] ?? store["quantity_1"] ?? "1"
        guard let quantity = Int(quantityText.trimmingCharacters(in: .whitespaces)), quantity > 0, quantity <= 999 else {
            return replies.failure(store, context, replies.label("errorQuantity", store.language) + " (\(quantityText))")
        }
        guard sku.inventory >= quantity else { return replies.failure(store, context, replies.label("errorOutOfStock", store.language)) }
        let (session, cookies) = replies.session(store, context)
        let price = Decimal(string: item.product.price) ?? 0
        shopping.withState(context.scope) { $0.add(skuId: sku.id, quantity: quantity, unitPrice: price, userId: session.userId) }
        return replies.redirect(store, to: "mOrderItemDisplay", cookies: cookies)
    }

    func update(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session else { return replies.failure(store, context, replies.label("errorEmptyCart", store.language)) }
        // orderItemId_1/quantity_1, orderItemId_2/quantity_2, … as the cart's form numbers them.
        var updates: [(String, String)] = []
        for item in store.parameters where item.name.hasPrefix("orderItemId") {
            let suffix = item.name.dropFirst("orderItemId".count)
            updates.append((item.value ?? "", store["quantity" + suffix] ?? ""))
        }
        for (orderItemId, quantityText) in updates {
            guard let quantity = Int(quantityText.trimmingCharacters(in: .whitespaces)), quantity >= 0, quantity <= 999 else {
                return replies.failure(store, context, replies.label("errorQuantity", store.language) + " (\(quantityText))")
            }
            let updated = shopping.withState(context.scope) { $0.update(orderItemId: orderItemId, quantity: quantity, userId: session.userId) }
            guard updated else { return replies.failure(store, context, replies.label("errorNoOrderItem", store.language) + " (\(orderItemId))") }
        }
        return replies.redirect(store, to: "mOrderItemDisplay")
    }

    func remove(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let orderItemId = store.text("orderItemId")
        let removed = store.session.map { session in
            shopping.withState(context.scope) { $0.update(orderItemId: orderItemId, quantity: 0, userId: session.userId) }
        }
        guard removed == true else { return replies.failure(store, context, replies.label("errorNoOrderItem", store.language) + " (\(orderItemId))") }
        return replies.redirect(store, to: "mOrderItemDisplay")
    }

    /// Places the cart as an order shipped to `addressIndex`; the cart empties.
    func submitOrder(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session, session.logonId != nil else { return replies.logonForm(store, context) }
        let index = Int(store.text("addressIndex")) ?? 0
        let placed: PlacedOrder? = shopping.withState(context.scope) { state in
            guard let lines = state.carts[session.userId], !lines.isEmpty,
                let address = state.shopper(userId: session.userId)?.addresses[safe: index]
            else { return nil }
            let charges = Charges(lines: lines)
            let order = PlacedOrder(
                id: String(state.nextOrderId), lines: lines, address: address, shippingMode: "Standard Delivery",
                shipping: charges.shipping, tax: charges.tax, placed: Date())
            state.nextOrderId += 1
            state.orders[session.userId, default: []].append(order)
            state.carts[session.userId] = nil
            return order
        }
        guard let placed else { return replies.failure(store, context, replies.label("errorNothingToOrder", store.language)) }
        return replies.redirect(store, to: "mOrderShippingBillingConfirmationView", extra: [QueryItem(name: "orderId", value: placed.id)])
    }
}
