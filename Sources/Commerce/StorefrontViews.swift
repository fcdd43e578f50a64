import Foundation
import HTTPServer
import MockCore
import Templating

/// The storefront's views: each reads the catalog and the shopper's state and renders its page.
extension CommerceBackend {
    typealias View = (StoreRequest, RequestContext) -> Response

    func view(_ name: String) -> View? {
        switch name {
        case "StoreView", "mStoreView", "mIndex", "TopCategoriesDisplay": home
        case "mTopCategoriesDisplayView": topCategories
        case "mCategoriesDisplayView": categoryPage
        case "mProductDisplayView": productPage
        case "mCatalogSearchResultView": searchResults
        case "mOrderItemDisplay": cart
        case "MobileLogonForm", "mCheckoutLogon", "ReLogonFormView": logonForm
        case "MobileUserRegistrationAddForm": registrationForm
        case "mMyAccountDisplay": requiringLogon(account)
        case "mAddressBookDisplay": requiringLogon(addressBook)
        case "mAddressForm": requiringLogon(addressForm)
        case "mInterestListDisplay": wishList
        case "mEmailWishlistDisplay": emailWishList
        case "mSendWishListMessage": wishListSent
        case "mStoreLocatorView": storeLocator
        case "mStoreDetailView": physicalStorePage("StoreDetail")
        case "mStoreMapView": physicalStorePage("StoreMap")
        case "mOrderBillingAddressSelection": requiringLogon(checkoutAddress)
        case "mOrderShippingBillingSummaryView": requiringLogon(checkoutSummary)
        case "mOrderShippingBillingConfirmationView", "mOrderDetails": requiringLogon(orderDetails)
        case "mOrderHistory": requiringLogon(orderHistory)
        default: nil
        }
    }

    /// Account pages: the logon form for a guest, the error page for a session that expired.
    private func requiringLogon(_ view: @escaping View) -> View {
        { [self] store, context in
            if store.sessionExpired {
                return errorPage(store, message: pages.label("errorSessionExpired", store.language), scope: context.scope)
            }
            guard store.session?.logonId != nil else { return logonForm(store, context) }
            return view(store, context)
        }
    }

    /// The registered shopper the request's session belongs to.
    func shopper(_ store: StoreRequest, _ context: RequestContext) -> Shopper? {
        store.session.flatMap { session in withState(context.scope) { $0.shopper(userId: session.userId) } }
    }

    // MARK: Catalog

    private func home(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let featured = catalog.departments.compactMap { catalog.products(under: $0.id).first }
        return page("StoreView", store, scope: context.scope, title: pages.label("home", store.language), [
            ("departments", .array(catalog.departments.map { departmentValue($0, store.language) })),
            ("featured", .array(featured.map { productValue($0, store.language) })),
        ])
    }

    private func topCategories(_ store: StoreRequest, _ context: RequestContext) -> Response {
        page("TopCategoriesDisplay", store, scope: context.scope, title: pages.label("departments", store.language), [
            ("departments", .array(catalog.departments.map { departmentValue($0, store.language) })),
        ])
    }

    private func categoryPage(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let id = store.text("categoryId")
        if let department = catalog.department(id) {
            return page("CategoriesDisplay", store, scope: context.scope, title: department.name.text(store.language), [
                ("department", departmentValue(department, store.language)),
                ("categories", .array(department.categories.map { categoryValue($0, store.language) })),
            ])
        }
        guard let (department, category) = catalog.category(id) else {
            return errorPage(store, message: pages.label("errorNoCategory", store.language) + Self.naming("categoryId", id), scope: context.scope)
        }
        let products = catalog.products(inCategory: category.id)
        let paging = Paging(store, total: products.count, defaultSize: 12)
        return page("ProductListing", store, scope: context.scope, title: category.name.text(store.language), [
            ("department", departmentValue(department, store.language)),
            ("category", categoryValue(category, store.language)),
            ("products", .array(products[paging.range].map { productValue($0, store.language) })),
            ("paging", paging.value(link: "\(Self.servlet)mCategoriesDisplayView?\(baseQuery(store.language))&categoryId=\(category.id)")),
        ])
    }

    private func productPage(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let id = store.text("productId")
        guard let product = catalog.product(id) ?? catalog.item(id)?.product else {
            return errorPage(store, message: pages.label("errorNoProduct", store.language) + Self.naming("productId", id), scope: context.scope)
        }
        let category = catalog.category(product.category)
        var values: TemplateMembers = [("product", productValue(product, store.language, detailed: true))]
        if let category {
            values.append(("department", departmentValue(category.department, store.language)))
            values.append(("category", categoryValue(category.category, store.language)))
        }
        if let message = store["errorMessage"] { values.append(("error", .string(message))) }
        return page("ProductDisplay", store, scope: context.scope, title: product.name.text(store.language), values)
    }

    private func searchResults(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let term = store.text("searchTerm")
        let found = catalog.search(term, language: store.language)
        let paging = Paging(store, total: found.count, defaultSize: 10)
        let link = "\(Self.servlet)mCatalogSearchResultView?\(baseQuery(store.language))&searchTerm=\(term.percentEncoded)&pgGrp=search"
        return page("CatalogSearchResult", store, scope: context.scope, title: pages.label("searchResults", store.language), [
            ("searchTerm", .string(term)),
            ("total", .number(Double(found.count))),
            ("products", .array(found[paging.range].map { productValue($0, store.language) })),
            ("paging", paging.value(link: link)),
        ])
    }

    // MARK: Cart and checkout

    private func cart(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let lines = store.session.map { session in withState(context.scope) { $0.carts[session.userId] ?? [] } } ?? []
        var values = orderValues(lines, store.language)
        if let message = store["errorMessage"] { values.append(("error", .string(message))) }
        return page("OrderItemDisplay", store, scope: context.scope, title: pages.label("cart", store.language), values)
    }

    private func checkoutAddress(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session else { return logonForm(store, context) }
        let (lines, shopper) = withState(context.scope) { ($0.carts[session.userId] ?? [], $0.shopper(userId: session.userId)) }
        guard !lines.isEmpty else { return cart(store, context) }
        return page("OrderBillingAddressSelection", store, scope: context.scope, title: pages.label("checkout", store.language), [
            ("addresses", .array((shopper?.addresses ?? []).enumerated().map { addressValue($0.element, index: $0.offset) })),
        ] + orderValues(lines, store.language))
    }

    private func checkoutSummary(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session else { return logonForm(store, context) }
        let (lines, shopper) = withState(context.scope) { ($0.carts[session.userId] ?? [], $0.shopper(userId: session.userId)) }
        guard !lines.isEmpty else { return cart(store, context) }
        let index = Int(store.text("addressIndex")) ?? 0
        guard let address = shopper?.addresses[safe: index] else {
            return errorPage(store, message: pages.label("errorNoAddress", store.language), scope: context.scope)
        }
        let charges = Charges(lines: lines)
        return page("OrderShippingBillingSummary", store, scope: context.scope, title: pages.label("orderSummary", store.language), [
            ("address", addressValue(address, index: index)),
            ("shipping", .string(Money.plain(charges.shipping))),
            ("tax", .string(Money.plain(charges.tax))),
            ("grandTotal", .string(Money.plain(charges.total))),
        ] + orderValues(lines, store.language))
    }

    private func orderHistory(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session else { return logonForm(store, context) }
        let orders = withState(context.scope) { $0.orders[session.userId] ?? [] }
        return page("OrderHistory", store, scope: context.scope, title: pages.label("orderHistory", store.language), [
            ("orders", .array(orders.reversed().map { placedOrderValue($0, store.language) })),
        ])
    }

    private func orderDetails(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session else { return logonForm(store, context) }
        let id = store.text("orderId")
        guard let order = withState(context.scope, { $0.orders[session.userId]?.first { $0.id == id } }) else {
            return errorPage(store, message: pages.label("errorNoOrder", store.language) + Self.naming("orderId", id), scope: context.scope)
        }
        return page("OrderDetails", store, scope: context.scope, title: pages.label("order", store.language) + " " + order.id, [
            ("order", placedOrderValue(order, store.language)),
            ("confirmation", .bool(store.request.path.hasSuffix("ConfirmationView"))),
        ])
    }

    // MARK: Shopper

    func logonForm(_ store: StoreRequest, _ context: RequestContext) -> Response {
        page("Logon", store, scope: context.scope, title: pages.label("signIn", store.language), [
            ("logonId", .string(store.text("logonId"))),
            ("URL", .string(store["URL"] ?? Self.afterLogon(store.request.path))),
            ("error", .string(store["errorMessage"] ?? "")),
        ])
    }

    /// Where signing in leads when the form does not say: back to the page that asked for it.
    private static func afterLogon(_ path: String) -> String {
        let view = path.hasPrefix(servlet) ? ViewNames.canonical(String(path.dropFirst(servlet.count))) : ""
        switch view {
        case "mCheckoutLogon": return "mOrderBillingAddressSelection"
        case let asked where asked.hasPrefix("m"): return asked
        default: return "mMyAccountDisplay"
        }
    }

    private func registrationForm(_ store: StoreRequest, _ context: RequestContext) -> Response {
        page("UserRegistrationAdd", store, scope: context.scope, title: pages.label("register", store.language), [
            ("error", .string(store["errorMessage"] ?? "")),
            ("logonId", .string(store.text("logonId"))),
            ("firstName", .string(store.text("firstName"))),
            ("lastName", .string(store.text("lastName"))),
            ("email1", .string(store.text("email1"))),
        ])
    }

    private func account(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let shopper = shopper(store, context)
        return page("MyAccountDisplay", store, scope: context.scope, title: pages.label("myAccount", store.language), [
            ("shopper", object([("firstName", .string(shopper?.firstName ?? "")), ("lastName", .string(shopper?.lastName ?? "")),
                                ("email", .string(shopper?.email ?? "")), ("logonId", .string(shopper?.logonId ?? ""))])),
        ])
    }

    private func addressBook(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let shopper = shopper(store, context)
        return page("AddressBook", store, scope: context.scope, title: pages.label("addressBook", store.language), [
            ("addresses", .array((shopper?.addresses ?? []).enumerated().map { addressValue($0.element, index: $0.offset) })),
            ("message", .string(store["message"] ?? "")),
        ])
    }

    private func addressForm(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let shopper = shopper(store, context)
        let index = Int(store.text("addressIndex"))
        let address = index.flatMap { shopper?.addresses[safe: $0] }
        return page("AddressForm", store, scope: context.scope, title: pages.label(address == nil ? "addAddress" : "editAddress", store.language), [
            ("address", address.map { addressValue($0, index: index ?? 0) } ?? .null),
            ("error", .string(store["errorMessage"] ?? "")),
        ])
    }

    private func wishList(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let items = store.session.map { session in withState(context.scope) { $0.wishlists[session.userId] ?? [] } } ?? []
        return page("InterestListDisplay", store, scope: context.scope, title: pages.label("wishList", store.language), [
            ("items", .array(items.compactMap { catalog.item($0) }.map { item in
                object([("sku", skuValue(item.sku)), ("product", productValue(item.product, store.language))])
            })),
            ("listId", .string(store.session.map { String($0.userId) } ?? "")),
        ])
    }

    private func emailWishList(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let shopper = shopper(store, context)
        return page("EmailWishlist", store, scope: context.scope, title: pages.label("emailWishList", store.language), [
            ("listId", .string(store.session.map { String($0.userId) } ?? "")),
            ("senderName", .string(shopper.map { "\($0.firstName) \($0.lastName)" } ?? "")),
            ("senderEmail", .string(shopper?.email ?? "")),
            ("error", .string(store["errorMessage"] ?? "")),
        ])
    }

    private func wishListSent(_ store: StoreRequest, _ context: RequestContext) -> Response {
        page("SendWishListMessage", store, scope: context.scope, title: pages.label("emailWishList", store.language), [
            ("recipient", .string(store.text("recipient"))),
        ])
    }

    // MARK: Store locator

    private func storeLocator(_ store: StoreRequest, _ context: RequestContext) -> Response {
        page("StoreLocator", store, scope: context.scope, title: pages.label("storeLocator", store.language), [
            ("zipOrCity", .string(store.text("zipOrCity"))),
            ("productId", .string(store.text("productId"))),
        ])
    }

    /// `mStoreDetailView` (template `StoreDetail`) and `mStoreMapView` (`StoreMap`) of `physicalStoreId`.
    private func physicalStorePage(_ template: String) -> View {
        { [self] store, context in
            let id = store.text("physicalStoreId")
            guard let found = physicalStores.store(id) else {
                return errorPage(store, message: pages.label("errorNoStore", store.language) + Self.naming("physicalStoreId", id), scope: context.scope)
            }
            return page(template, store, scope: context.scope, title: found.name, [("store", physicalStoreValue(found, kilometres: nil))])
        }
    }

    /// `mStoreLocatorSearchView`/`…ResultView`: stores near the coordinates given (from the
    /// device's location), or near where the geocoder puts the ZIP code or city; without a
    /// geocoder answer, the stores in that city or ZIP code.
    func storeLocatorSearch(_ store: StoreRequest, _ context: RequestContext) -> Reply {
        if let latitude = Double(store.text("geoCodeLatitude")), let longitude = Double(store.text("geoCodeLongitude")) {
            return .response(storeResults(store, context, near: (latitude, longitude), fallback: []))
        }
        let place = store.text("zipOrCity")
        guard !place.isEmpty else {
            return .response(page("StoreLocator", store, scope: context.scope, title: pages.label("storeLocator", store.language),
                                  [("error", .string(pages.label("errorZipOrCity", store.language)))]))
        }
        let matching = physicalStores.matching(place)
        return .deferred { [self] reply in
            let geocoding = settings.geocodingURL(place, localAuthority: reply.loop.localAuthority)
            reply.loop.send(OutboundRequest(url: geocoding, timeout: .seconds(5))) { result in
                var point: (Double, Double)?
                if case .success(let response) = result, response.status == 200 {
                    point = CommerceSettings.location(in: response.body.bytes)
                } else {
                    self.logger.info("commerce: the geocoder did not place '\(place)' (\(result.failureText)); stores matched by ZIP code and city")
                }
                reply.send(self.storeResults(store, context, near: point, fallback: matching))
            }
        }
    }

    private func storeResults(_ store: StoreRequest, _ context: RequestContext, near point: (Double, Double)?, fallback: [PhysicalStore]) -> Response {
        let found: [TemplateValue] = if let point {
            physicalStores.near(latitude: point.0, longitude: point.1).map { physicalStoreValue($0.store, kilometres: $0.kilometres) }
        } else {
            fallback.map { physicalStoreValue($0, kilometres: nil) }
        }
        return page("StoreLocatorResult", store, scope: context.scope, title: pages.label("storeLocator", store.language), [
            ("zipOrCity", .string(store.text("zipOrCity"))),
            ("stores", .array(found)),
            ("byLocation", .bool(store["geoCodeLatitude"] != nil)),
        ])
    }
}

extension Result<Response, OutboundError> {
    /// The failure, or the status of an answer that is not 200.
    var failureText: String {
        switch self {
        case .success(let response): "status \(response.status)"
        case .failure(let error): "\(error)"
        }
    }
}

extension CommerceBackend {
    /// " (productId 12)", or " (productId missing)": what a message is about.
    static func naming(_ parameter: String, _ value: String) -> String {
        " (\(parameter) \(value.isEmpty ? "missing" : value))"
    }
}

/// `beginIndex`/`pageSize` paging over a list, with the links the page shows.
struct Paging {
    let begin: Int
    let size: Int
    let total: Int

    init(_ store: StoreRequest, total: Int, defaultSize: Int) {
        size = max(1, min(100, Int(store.text("pageSize")) ?? defaultSize))
        begin = max(0, min(Int(store.text("beginIndex")) ?? 0, max(0, total - 1)))
        self.total = total
    }

    var range: Range<Int> { begin..<min(total, begin + size) }

    func value(link: String) -> TemplateValue {
        object([
            ("first", .number(Double(total == 0 ? 0 : begin + 1))),
            ("last", .number(Double(range.upperBound))),
            ("total", .number(Double(total))),
            ("previous", begin > 0 ? .string("\(link)&beginIndex=\(max(0, begin - size))&pageSize=\(size)") : .null),
            ("next", range.upperBound < total ? .string("\(link)&beginIndex=\(range.upperBound)&pageSize=\(size)") : .null),
        ])
    }
}

/// Shipping and tax of an order: flat rates by the catalog, as a starter store's defaults.
/// Unverified against a real store's calculation rules; the figures are the emulator's own.
struct Charges {
    let subtotal: Decimal
    let shipping: Decimal
    let tax: Decimal
    var total: Decimal { subtotal + shipping + tax }

    init(lines: [OrderLine]) {
        subtotal = lines.subtotal
        shipping = lines.isEmpty ? 0 : (subtotal >= 100 ? 0 : Decimal(string: "9.95")!)
        // A 7% sales tax on the goods, rounded to the cent.
        tax = Decimal(Money.roundedCents(subtotal * Decimal(string: "0.07")!)) / 100
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
