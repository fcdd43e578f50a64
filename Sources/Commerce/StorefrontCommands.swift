import Foundation
import HTTPServer
import MockCore

/// The storefront's commands: each changes the shopper's state and redirects to its `URL`
/// parameter, or shows its `errorViewName` page (or the error page) with a message.
extension CommerceBackend {
    typealias Command = (StoreRequest, RequestContext) -> Reply

    func command(_ name: String) -> Command? {
        let command: ((StoreRequest, RequestContext) -> Response)? = switch name {
        case "OrderChangeServiceItemAdd", "OrderItemAdd": addToCart
        case "OrderChangeServiceItemUpdate", "OrderItemUpdate": updateCart
        case "OrderChangeServiceItemDelete", "OrderItemDelete": removeFromCart
        case "Logon": logon
        case "Logoff": logoff
        case "PersonProcessServicePersonRegister", "UserRegistrationAdd": register
        case "PersonChangeServiceAddressAdd", "PersonChangeServiceAddressUpdate": saveAddress
        case "PersonChangeServiceAddressDelete": deleteAddress
        case "InterestItemAdd": addToWishList
        case "InterestItemDelete": removeFromWishList
        case "InterestItemListMessage": emailWishList
        case "OrderProcessServiceOrderSubmit", "OrderProcessServiceOrderPrepare": submitOrder
        default: nil
        }
        return command.map { command in { .response(command($0, $1)) } }
    }

    /// The shopper's session, a new guest's when there is none yet (with the cookies to set).
    private func session(_ store: StoreRequest, _ context: RequestContext) -> (ShopperSession, cookies: [String]) {
        if let session = store.session { return (session, []) }
        let guest = withState(context.scope) { $0.newGuest() }
        return (guest, store.staleUserIds.flatMap { StoreCookies.cleared(userId: $0) } + StoreCookies.session(guest, storeId: catalog.store.storeId, language: store.language))
    }

    /// The page named by `errorViewName` (or the error page) with `message`.
    private func failure(_ store: StoreRequest, _ context: RequestContext, _ message: String, cookies: [String] = []) -> Response {
        let view = store.text("errorViewName")
        if !view.isEmpty, view != "GenericApplicationError", let render = self.view(view) {
            var parameters = store.parameters.filter { $0.name != "errorMessage" }
            parameters.append(QueryItem(name: "errorMessage", value: message))
            var response = render(StoreRequest(store.request, parameters: parameters, from: store), context)
            for cookie in cookies { response.headers.add("Set-Cookie", cookie) }
            return response
        }
        return errorPage(store, message: message, scope: context.scope)
    }

    // MARK: Cart

    private func addToCart(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let entry = store["catEntryId"] ?? store["catEntryId_1"] ?? store["productId"] ?? ""
        guard let item = catalog.item(entry) else {
            return failure(store, context, pages.label("errorNoProduct", store.language) + Self.naming("catEntryId", entry))
        }
        // A product with several SKUs: the one its defining attributes name.
        var sku = item.sku
        if item.product.skus.count > 1, item.sku.id == item.product.skus[0].id, entry == item.product.id {
            let chosen = item.product.attributes.compactMap { attribute in store["attrValue_\(attribute.name)"].map { (attribute.name, $0) } }
            guard chosen.count == item.product.attributes.count,
                  let match = item.product.skus.first(where: { sku in chosen.allSatisfy { sku.attributes[$0.0] == $0.1 } }) else {
                return failure(store, context, pages.label("errorChooseAttributes", store.language))
            }
            sku = match
        }
        let quantityText = store["quantity"] ?? store["quantity_1"] ?? "1"
        guard let quantity = Int(quantityText.trimmingCharacters(in: .whitespaces)), quantity > 0, quantity <= 999 else {
            return failure(store, context, pages.label("errorQuantity", store.language) + " (\(quantityText))")
        }
        guard sku.inventory >= quantity else { return failure(store, context, pages.label("errorOutOfStock", store.language)) }
        let (session, cookies) = self.session(store, context)
        let price = Decimal(string: item.product.price) ?? 0
        withState(context.scope) { $0.add(skuId: sku.id, quantity: quantity, unitPrice: price, userId: session.userId) }
        return redirect(store, to: "mOrderItemDisplay", cookies: cookies)
    }

    private func updateCart(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session else { return failure(store, context, pages.label("errorEmptyCart", store.language)) }
        // orderItemId_1/quantity_1, orderItemId_2/quantity_2, … as the cart's form numbers them.
        var updates: [(String, String)] = []
        for item in store.parameters where item.name.hasPrefix("orderItemId") {
            let suffix = item.name.dropFirst("orderItemId".count)
            updates.append((item.value ?? "", store["quantity" + suffix] ?? ""))
        }
        for (orderItemId, quantityText) in updates {
            guard let quantity = Int(quantityText.trimmingCharacters(in: .whitespaces)), quantity >= 0, quantity <= 999 else {
                return failure(store, context, pages.label("errorQuantity", store.language) + " (\(quantityText))")
            }
            let updated = withState(context.scope) { $0.update(orderItemId: orderItemId, quantity: quantity, userId: session.userId) }
            guard updated else { return failure(store, context, pages.label("errorNoOrderItem", store.language) + " (\(orderItemId))") }
        }
        return redirect(store, to: "mOrderItemDisplay")
    }

    private func removeFromCart(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let orderItemId = store.text("orderItemId")
        let removed = store.session.map { session in withState(context.scope) { $0.update(orderItemId: orderItemId, quantity: 0, userId: session.userId) } }
        guard removed == true else { return failure(store, context, pages.label("errorNoOrderItem", store.language) + " (\(orderItemId))") }
        return redirect(store, to: "mOrderItemDisplay")
    }

    private func submitOrder(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session, session.logonId != nil else { return logonForm(store, context) }
        let index = Int(store.text("addressIndex")) ?? 0
        let placed: PlacedOrder? = withState(context.scope) { state in
            guard let lines = state.carts[session.userId], !lines.isEmpty,
                  let address = state.shopper(userId: session.userId)?.addresses[safe: index] else { return nil }
            let charges = Charges(lines: lines)
            let order = PlacedOrder(id: String(state.nextOrderId), lines: lines, address: address, shippingMode: "Standard Delivery",
                                    shipping: charges.shipping, tax: charges.tax, placed: Date())
            state.nextOrderId += 1
            state.orders[session.userId, default: []].append(order)
            state.carts[session.userId] = nil
            return order
        }
        guard let placed else { return failure(store, context, pages.label("errorNothingToOrder", store.language)) }
        return redirect(store, to: "mOrderShippingBillingConfirmationView", extra: [QueryItem(name: "orderId", value: placed.id)])
    }

    // MARK: Shopper

    private func logon(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let logonId = store.text("logonId"), password = store["logonPassword"] ?? ""
        let account = withState(context.scope) { $0.accounts[logonId.lowercased()] }
        guard let account, account.password == password else {
            let message = pages.label(logonId.isEmpty ? "errorLogonIdMissing" : "errorBadPassword", store.language)
            var parameters = store.parameters.filter { $0.name != "logonPassword" && $0.name != "errorMessage" }
            parameters.append(QueryItem(name: "errorMessage", value: message))
            return logonForm(StoreRequest(store.request, parameters: parameters, from: store), context)
        }
        let previous = store.session
        guard let session = withState(context.scope, { $0.logon(account.logonId, replacing: previous) }) else {
            return failure(store, context, pages.label("errorBadPassword", store.language))
        }
        return redirect(store, to: "mMyAccountDisplay", cookies: replacing(store, with: session))
    }

    /// The cookies of a new session, the old ones (the guest's, stale ones) expired.
    private func replacing(_ store: StoreRequest, with session: ShopperSession) -> [String] {
        let old = (store.session.map { [$0.userId] } ?? []) + store.staleUserIds
        return old.filter { $0 != session.userId }.flatMap { StoreCookies.cleared(userId: $0) }
            + StoreCookies.session(session, storeId: catalog.store.storeId, language: store.language)
    }

    private func logoff(_ store: StoreRequest, _ context: RequestContext) -> Response {
        var cookies = StoreCookies.established(storeId: catalog.store.storeId, language: store.language)
        if let session = store.session {
            withState(context.scope) { $0.sessions[session.userId] = nil }
            cookies = StoreCookies.cleared(userId: session.userId) + cookies
        }
        return redirect(store, to: "StoreView", cookies: cookies)
    }

    private func register(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let logonId = store.text("logonId"), password = store["logonPassword"] ?? ""
        let missing = ["logonId", "logonPassword", "firstName", "lastName", "email1"].filter { store.text($0).isEmpty }
        if !missing.isEmpty {
            return failure(store, context, pages.label("errorMissingFields", store.language) + " (" + missing.joined(separator: ", ") + ")")
        }
        if password != (store["logonPasswordVerify"] ?? password) { return failure(store, context, pages.label("errorPasswordsDiffer", store.language)) }
        if password.count < 6 || !password.contains(where: \.isNumber) || !password.contains(where: \.isLetter) {
            return failure(store, context, pages.label("errorWeakPassword", store.language))
        }
        let shopper = Shopper(logonId: logonId, password: password, firstName: store.text("firstName"), lastName: store.text("lastName"),
                              email: store.text("email1"), preferredLanguage: store.language.rawValue, addresses: [])
        let previous = store.session
        let session: ShopperSession? = withState(context.scope) { state in
            guard state.accounts[logonId.lowercased()] == nil else { return nil }
            _ = state.register(shopper)
            return state.logon(logonId, replacing: previous)
        }
        guard let session else { return failure(store, context, pages.label("errorLogonIdTaken", store.language) + " (\(logonId))") }
        return redirect(store, to: "mMyAccountDisplay", cookies: replacing(store, with: session))
    }

    private func saveAddress(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session, let logonId = session.logonId else { return logonForm(store, context) }
        let missing = ["nickName", "firstName", "lastName", "address1", "city", "state", "zipCode"].filter { store.text($0).isEmpty }
        if !missing.isEmpty {
            return failure(store, context, pages.label("errorMissingFields", store.language) + " (" + missing.joined(separator: ", ") + ")")
        }
        let address = ShopperAddress(nickName: store.text("nickName"), firstName: store.text("firstName"), lastName: store.text("lastName"),
                                     address1: store.text("address1"), city: store.text("city"), state: store.text("state"),
                                     zipCode: store.text("zipCode"), country: store["country"].map { $0.isEmpty ? "US" : $0 } ?? "US",
                                     phone: store.text("phone1"), email: store.text("email1"))
        let index = Int(store.text("addressIndex"))
        let saved: Bool = withState(context.scope) { state in
            guard var shopper = state.accounts[logonId.lowercased()] else { return false }
            if let index {
                guard shopper.addresses.indices.contains(index) else { return false }
                shopper.addresses[index] = address
            } else {
                guard !shopper.addresses.contains(where: { $0.nickName == address.nickName }) else { return false }
                shopper.addresses.append(address)
            }
            state.accounts[logonId.lowercased()] = shopper
            return true
        }
        guard saved else { return failure(store, context, pages.label("errorAddressNickName", store.language) + " (\(address.nickName))") }
        return redirect(store, to: "mAddressBookDisplay")
    }

    private func deleteAddress(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session, let logonId = session.logonId else { return logonForm(store, context) }
        let index = Int(store.text("addressIndex")) ?? -1
        let deleted: Bool = withState(context.scope) { state in
            guard var shopper = state.accounts[logonId.lowercased()], shopper.addresses.indices.contains(index) else { return false }
            shopper.addresses.remove(at: index)
            state.accounts[logonId.lowercased()] = shopper
            return true
        }
        guard deleted else { return failure(store, context, pages.label("errorNoAddress", store.language)) }
        return redirect(store, to: "mAddressBookDisplay")
    }

    // MARK: Wish list

    private func addToWishList(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let entry = store["catEntryId"] ?? store["productId"] ?? ""
        guard let item = catalog.item(entry) else {
            return failure(store, context, pages.label("errorNoProduct", store.language) + Self.naming("catEntryId", entry))
        }
        let (session, cookies) = self.session(store, context)
        withState(context.scope) { state in
            if !(state.wishlists[session.userId] ?? []).contains(item.sku.id) { state.wishlists[session.userId, default: []].append(item.sku.id) }
        }
        return redirect(store, to: "mInterestListDisplay", cookies: cookies)
    }

    private func removeFromWishList(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let entry = store.text("catEntryId")
        if let session = store.session {
            withState(context.scope) { $0.wishlists[session.userId]?.removeAll { $0 == entry } }
        }
        return redirect(store, to: "mInterestListDisplay")
    }

    /// `InterestItemListMessage`: the wish list e-mailed. Nothing is sent: the emulator checks
    /// the addresses and logs the message.
    private func emailWishList(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let recipient = store.text("recipient"), sender = store.text("sender_email")
        for (field, address) in [("recipient", recipient), ("sender_email", sender)] where !Self.isEmailAddress(address) {
            return failure(store, context, pages.label("errorEmailAddress", store.language) + " (\(field): \(address.isEmpty ? "missing" : address))")
        }
        let count = store.session.map { session in withState(context.scope) { $0.wishlists[session.userId]?.count ?? 0 } } ?? 0
        logger.info("commerce: wish list of \(count) item(s) e-mailed from \(sender) to \(recipient) (not sent: emulated)")
        return redirect(store, to: "mSendWishListMessage", extra: [QueryItem(name: "recipient", value: recipient)])
    }

    static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !text.contains(" ")
    }
}
