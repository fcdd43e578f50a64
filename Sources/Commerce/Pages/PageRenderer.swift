import Foundation
import HTTPServer
import MockCore
import Templating

/// Renders a storefront page: the view's template inside the layout, with what every page shows
/// (the store, language, device, signed-in shopper and cart count) and the links it carries.
struct PageRenderer: Sendable {
    let pages: StorePages
    let store: StoreInfo
    let shopping: ShoppingStateKey
    /// What every page shows that depends only on the language, made once.
    private let english: FixedMembers
    private let french: FixedMembers

    /// The members of every page's context that depend only on the store and the language.
    private struct FixedMembers {
        let storeId, catalogId, langId, locale, lang, base, storeName, otherLangId: TemplateValue
        /// The parameters every link and redirect carries.
        let query: String

        init(_ store: StoreInfo, _ language: StoreLanguage) {
            query = "storeId=\(store.storeId)&catalogId=\(store.catalogId)&langId=\(language.rawValue)"
            storeId = .string(store.storeId)
            catalogId = .string(store.catalogId)
            langId = .string(language.rawValue)
            locale = .string(language.locale)
            lang = .string(language.code)
            // Inserted raw ({{{base}}}) into href attributes: already escaped for HTML.
            base = .string(query.replacingOccurrences(of: "&", with: "&amp;"))
            storeName = .string(store.name)
            otherLangId = .string(language == .english ? "-2" : "-1")
        }

        var members: TemplateMembers {
            [
                ("storeId", storeId), ("catalogId", catalogId), ("langId", langId), ("locale", locale), ("lang", lang), ("base", base),
                ("storeName", storeName), ("otherLangId", otherLangId),
            ]
        }
    }

    init(pages: StorePages, store: StoreInfo, shopping: ShoppingStateKey) {
        let english = FixedMembers(store, .english)
        let french = FixedMembers(store, .french)
        self.pages = pages.folding { $0 == .french ? french.members : english.members }
        self.store = store
        self.shopping = shopping
        self.english = english
        self.french = french
    }

    /// What every page gets: the store, language, device, shopper and the query string that
    /// every link carries.
    private func common(_ request: StoreRequest, scope: StateScope) -> TemplateMembers {
        let (shopper, cartCount): (Shopper?, Int) =
            request.session.map { session in
                shopping.withState(scope) { state in
                    (session.logonId == nil ? nil : state.shopper(userId: session.userId), state.carts[session.userId]?.itemCount ?? 0)
                }
            } ?? (nil, 0)
        let fixed = request.language == .french ? french : english
        return [
            ("storeId", fixed.storeId),
            ("catalogId", fixed.catalogId),
            ("langId", fixed.langId),
            ("locale", fixed.locale),
            ("lang", fixed.lang),
            ("base", fixed.base),
            ("servlet", .string(request.basePath + CommerceBackend.servlet)),
            // Sign-in and checkout go over TLS when the store can be reached that way, as a real
            // store's SSL-only commands do.
            ("secureServlet", .string((request.secureOrigin ?? "") + request.basePath + CommerceBackend.servlet)),
            ("storeName", fixed.storeName),
            ("device", .string(request.device.name)),
            ("pageSet", .string(request.device.pageSet.rawValue)),
            ("hybrid", .bool(request.device.hybrid)),
            ("tablet", .bool(request.device.pageSet == .tablet)),
            ("loggedOn", .bool(shopper != nil)),
            ("shopperName", .string(shopper?.firstName ?? "")),
            ("cartCount", .number(Double(cartCount))),
            ("otherLangId", fixed.otherLangId),
        ]
    }

    /// The parameters every link and redirect carries.
    func baseQuery(_ language: StoreLanguage) -> String {
        (language == .french ? french : english).query
    }

    /// A label's text, for titles and messages made in code.
    func label(_ key: String, _ language: StoreLanguage) -> String {
        pages.label(key, language)
    }

    /// A rendered page (the backend adds the cookies every page sets). Never cached by the
    /// client: pages show the cart.
    func page(
        _ view: String, _ request: StoreRequest, scope: StateScope, title: String, status: Int = 200,
        _ values: TemplateMembers = []
    ) -> Response {
        let html = pages.render(view, values, title: title, common: common(request, scope: scope), language: request.language)
        let headers: HTTPHeaders = ["Content-Type": "text/html; charset=UTF-8", "Cache-Control": "no-cache", "Pragma": "no-cache"]
        return Response(status: status, headers: headers, body: ResponseBody(html))
    }

    /// The store's error page (`GenericApplicationError`), never a stack trace.
    func errorPage(_ request: StoreRequest, message: String, status: Int = 200, scope: StateScope) -> Response {
        page("GenericError", request, scope: scope, title: label("errorTitle", request.language), status: status, [("message", .string(message))])
    }

    /// " (productId 12)", or " (productId missing)": what a message is about.
    static func naming(_ parameter: String, _ value: String) -> String {
        " (\(parameter) \(value.isEmpty ? "missing" : value))"
    }
}
