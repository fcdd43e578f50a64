// Module Commerce: the WebSphere Commerce 7 "Madisons" mobile storefront of seed 000 — the
// pages the iPhone/iPad hybrid app wraps (with its madisons:// bridge links), sessions and
// carts as WebSphere Commerce keeps them, the store locator, checkout, and the JSON search
// services — from editable fixtures and templates in stubs/commerce/.

import Foundation
import HTTPServer
import Logging
import MockCore
import Templating

/// The storefront at `/webapp/wcs/stores/servlet/<View or Command>`, its SEO URLs under `/shop`
/// (and under the servlet, without the web server's rewrite), its assets under `/wcsstore`, and the
/// search REST services under `/search/resources` (and `/wcs/resources`, where feature packs
/// before 7 served them).
public final class CommerceBackend: Backend {
    public let name = "commerce"
    public let mounts = ["/webapp/wcs/stores/servlet", "/shop", "/wcsstore", "/search/resources", "/wcs/resources"]

    let catalog: CommerceCatalog
    let physicalStores: PhysicalStores
    let pages: StorePages
    let settings: CommerceSettings
    let assets: StoreAssets
    /// Each scope's shoppers, sessions, carts, wish lists and orders.
    private let shopping: ScopeKey<ScopedValue<ShoppingState>>
    /// Catalog pages as rendered for a shopper's cart count (they depend on nothing else that
    /// changes): browsing is answered from memory. Set-Cookie is added per request.
    private let pageCache: ResponseCache
    let logger: Logger

    /// The views whose page depends only on the request, the catalog and the header's cart count.
    private static let catalogViews: Set<String> = ["StoreView", "mStoreView", "mIndex", "TopCategoriesDisplay", "mTopCategoriesDisplayView",
                                                    "mCategoriesDisplayView", "mProductDisplayView", "mCatalogSearchResultView",
                                                    "mStoreLocatorView", "mStoreDetailView", "mStoreMapView"]

    static let servlet = "/webapp/wcs/stores/servlet/"

    /// Loads `directory` (normally `stubs/commerce`); problems are logged with their file and
    /// field, and whatever loaded is served.
    public init(directory: URL, logger: Logger = Logger(label: "understudy")) {
        let (loaded, problems) = Self.load(directory)
        for problem in problems { logger.warning("commerce: \(problem)") }
        pageCache = ResponseCache(capacity: loaded.settings.responseCache, maxBytes: loaded.settings.responseCacheBytes)
        settings = loaded.settings
        catalog = loaded.catalog
        physicalStores = loaded.stores
        let fixtureShoppers = loaded.shoppers
        shopping = ScopeKey { _ in ScopedValue { ShoppingState(shoppers: fixtureShoppers) } measure: { $0.estimatedBytes } }
        pages = loaded.pages
        assets = StoreAssets(directory: directory.appendingPathComponent("assets"))
        self.logger = logger
    }

    public var report: BackendReport {
        BackendReport(fixtures: [("products", catalog.products.count), ("departments", catalog.departments.count),
                                 ("stores", physicalStores.stores.count)],
                      cache: pageCache.statistics)
    }

    private static func load(_ directory: URL)
        -> ((catalog: CommerceCatalog, stores: PhysicalStores, shoppers: [Shopper], pages: StorePages, settings: CommerceSettings), [FixtureError]) {
        var problems: [FixtureError] = []
        var settings = CommerceSettings()
        do { settings = try CommerceSettings(file: directory.appendingPathComponent("config.json")) } catch { problems.append(error) }
        var catalog = CommerceCatalog.empty, stores = PhysicalStores(stores: []), shoppers: [Shopper] = []
        do { catalog = try CommerceCatalog.load(directory.appendingPathComponent("catalog.json")) } catch { problems.append(error) }
        do { stores = try PhysicalStores.load(directory.appendingPathComponent("stores.json")) } catch { problems.append(error) }
        do { shoppers = try ShopperFixtures.load(directory.appendingPathComponent("shoppers.json")) } catch { problems.append(error) }
        let (pages, pageProblems) = StorePages.load(directory)
        return ((catalog, stores, shoppers, pages, settings), problems + pageProblems)
    }

    /// Every problem with the folder's files, for `understudy check`.
    public static func check(directory: URL) -> [FixtureError] {
        load(directory).1
    }

    /// Runs `body` on the scope's state, made from the fixtures on first use.
    func withState<T>(_ scope: StateScope, _ body: (inout ShoppingState) -> T) -> T {
        scope[shopping].withValue(body)
    }

    // MARK: Requests

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        let path = request.path
        if path.hasPrefix("/wcsstore/") { return .response(assets.response(for: path, catalog: catalog)) }
        if path.hasPrefix("/search/resources/") || path.hasPrefix("/wcs/resources/") {
            return .response(searchResource(request, basePath: context.basePath))
        }
        var store = StoreRequest(request)
        store.basePath = context.basePath
        store.secureOrigin = context.secureOrigin(of: request)
        let presented = store.sessionCookies
        if !presented.isEmpty {
            let known = withState(context.scope) { state in presented.map { state.sessions[$0.userId] } }
            for (cookie, session) in zip(presented, known) {
                if let session, session.token == cookie.token {
                    if store.session == nil { store.session = session }
                } else {
                    store.staleUserIds.append(cookie.userId)
                }
            }
        }
        let name: String
        if path.hasPrefix(Self.servlet), !path.dropFirst(Self.servlet.count).contains("/") {
            name = String(path.dropFirst(Self.servlet.count))
        } else if let seo = seoView(path) {
            var parameters = store.parameters
            parameters.append(contentsOf: seo.parameters)
            return respond(seo.view, StoreRequest(request, parameters: parameters, from: store), context)
        } else {
            return .response(errorPage(store, message: pages.label("errorPageNotFound", store.language), status: 404, scope: context.scope))
        }
        // One store is emulated: another's id is a misconfigured client, not a page of this one.
        if let storeId = store["storeId"], storeId != catalog.store.storeId {
            return .response(errorPage(store, message: "The store \(storeId) is not available (this server has store \(catalog.store.storeId)).",
                                       status: 404, scope: context.scope))
        }
        return respond(name, store, context)
    }

    private func respond(_ name: String, _ store: StoreRequest, _ context: RequestContext) -> Reply {
        if let command = command(name) {
            guard store.request.method == .post || store.request.method == .get else {
                return .response(errorPage(store, message: "\(name) takes GET or POST", status: 405, scope: context.scope))
            }
            return command(store, context)
        }
        let name = ViewNames.canonical(name)
        if name == "mStoreLocatorSearchView" || name == "mStoreLocatorResultView" { return storeLocatorSearch(store, context) }
        guard let view = view(name) else {
            return .response(withSessionCookies(errorPage(store, message: pages.label("errorPageNotFound", store.language) + " (\(name))", status: 404, scope: context.scope), store))
        }
        guard Self.catalogViews.contains(name), store.request.method == .get || store.request.method == .head else {
            return .response(withSessionCookies(view(store, context), store))
        }
        let cartCount = store.session.map { session in withState(context.scope) { $0.carts[session.userId]?.itemCount ?? 0 } } ?? 0
        // Shared by the scopes: a shopper's name is the scope's own (registered in it), links
        // carry the scope's path prefix.
        let shopper = store.session?.logonId.map { context.scope.name + "/" + $0 } ?? "-"
        let key = "\(store.device.name) \(store.language.rawValue) \(shopper) \(cartCount) \(store.secureOrigin ?? "-") \(store.basePath)\(store.request.target)"
        if let cached = pageCache.response(for: key) { return .response(withSessionCookies(cached, store)) }
        var rendered = view(store, context)
        rendered.body = ResponseBody(shared: SharedBytes(rendered.body.bytes))
        pageCache.store(rendered, for: key)
        return .response(withSessionCookies(rendered, store))
    }

    /// The cookies every page sets when the browser lacks them: the session's establishment and
    /// the language (`WC_ACTIVEPOINTER`), and a forced device format.
    private func withSessionCookies(_ response: Response, _ store: StoreRequest) -> Response {
        var response = response
        let pointer = "\(store.language.rawValue)%2C\(catalog.store.storeId)"
        if store.cookie("WC_SESSION_ESTABLISHED") == nil || store.cookie("WC_ACTIVEPOINTER") != pointer,
           !response.headers.values(for: "Set-Cookie").contains(where: { $0.hasPrefix("WC_ACTIVEPOINTER=") }) {
            for cookie in StoreCookies.established(storeId: catalog.store.storeId, language: store.language) { response.headers.add("Set-Cookie", cookie) }
        }
        if let forced = store["deviceFormat"], DeviceFormat(name: forced) != nil {
            response.headers.add("Set-Cookie", "\(DeviceFormat.cookie)=\(store.device.name); Path=/")
        }
        return response
    }

    /// `/shop/<lang>/<storeKeyword>[/<keyword>]`, or the same under the servlet
    /// (`/webapp/wcs/stores/servlet/<lang>/…`, the form without the web server's rewrite): the
    /// home page, a department or category by its keyword, a product by its part number
    /// (lower-cased).
    private func seoView(_ path: String) -> (view: String, parameters: [QueryItem])? {
        let rest = path.hasPrefix(Self.servlet) ? path.dropFirst(Self.servlet.count) : path.dropFirst("/shop/".count)
        guard path.hasPrefix(Self.servlet) || path.hasPrefix("/shop/") else { return nil }
        let parts = ["shop"] + rest.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[2].lowercased() == catalog.store.keyword.lowercased() else { return nil }
        let langId = parts[1] == "fr" ? "-2" : "-1"
        guard parts.count > 3 else { return ("StoreView", [QueryItem(name: "langId", value: langId)]) }
        let keyword = parts[3].lowercased()
        for department in catalog.departments {
            if department.keyword == keyword { return ("mCategoriesDisplayView", [QueryItem(name: "categoryId", value: department.id), QueryItem(name: "langId", value: langId)]) }
            for category in department.categories where category.keyword == keyword {
                return ("mCategoriesDisplayView", [QueryItem(name: "categoryId", value: category.id), QueryItem(name: "langId", value: langId)])
            }
        }
        if let product = catalog.product(partNumber: keyword.uppercased()) {
            return ("mProductDisplayView", [QueryItem(name: "productId", value: product.id), QueryItem(name: "langId", value: langId)])
        }
        return nil
    }

    // MARK: Pages

    /// What every page gets: the store, language, device, shopper and the query string that
    /// every link carries.
    func common(_ store: StoreRequest, session: ShopperSession?, scope: StateScope) -> TemplateMembers {
        let (shopper, cartCount): (Shopper?, Int) = session.map { session in
            withState(scope) { state in
                (session.logonId == nil ? nil : state.shopper(userId: session.userId), state.carts[session.userId]?.itemCount ?? 0)
            }
        } ?? (nil, 0)
        return [
            ("storeId", .string(catalog.store.storeId)),
            ("catalogId", .string(catalog.store.catalogId)),
            ("langId", .string(store.language.rawValue)),
            ("locale", .string(store.language.locale)),
            ("lang", .string(store.language.code)),
            // Inserted raw ({{{base}}}) into href attributes: already escaped for HTML.
            ("base", .string(baseQuery(store.language).replacingOccurrences(of: "&", with: "&amp;"))),
            ("servlet", .string(store.basePath + Self.servlet)),
            // Sign-in and checkout go over TLS when the store can be reached that way, as a real
            // store's SSL-only commands do.
            ("secureServlet", .string((store.secureOrigin ?? "") + store.basePath + Self.servlet)),
            ("storeName", .string(catalog.store.name)),
            ("device", .string(store.device.name)),
            ("pageSet", .string(store.device.pageSet.rawValue)),
            ("hybrid", .bool(store.device.hybrid)),
            ("tablet", .bool(store.device.pageSet == .tablet)),
            ("loggedOn", .bool(shopper != nil)),
            ("shopperName", .string(shopper?.firstName ?? "")),
            ("cartCount", .number(Double(cartCount))),
            ("otherLangId", .string(store.language == .english ? "-2" : "-1")),
        ]
    }

    func baseQuery(_ language: StoreLanguage) -> String {
        "storeId=\(catalog.store.storeId)&catalogId=\(catalog.store.catalogId)&langId=\(language.rawValue)"
    }

    /// A rendered page (`respond` adds the cookies every page sets). Never cached by the client:
    /// pages show the cart.
    func page(_ view: String, _ store: StoreRequest, scope: StateScope, session: ShopperSession? = nil, title: String,
              status: Int = 200, cookies: [String] = [], _ values: TemplateMembers = []) -> Response {
        let session = session ?? store.session
        let html = pages.render(view, values, title: title, common: common(store, session: session, scope: scope), language: store.language)
        var headers: HTTPHeaders = ["Content-Type": "text/html; charset=UTF-8", "Cache-Control": "no-cache", "Pragma": "no-cache"]
        for cookie in cookies { headers.add("Set-Cookie", cookie) }
        return Response(status: status, headers: headers, body: ResponseBody(html))
    }

    /// The store's error page (`GenericApplicationError`), never a stack trace.
    func errorPage(_ store: StoreRequest, message: String, status: Int = 200, scope: StateScope) -> Response {
        page("GenericError", store, scope: scope, title: pages.label("errorTitle", store.language), status: status, [("message", .string(message))])
    }

    /// A command's answer: a redirect to its `URL` parameter (a view name, a path, or a URL of
    /// this server), as the servlet does after a successful command; to `fallback` when the
    /// parameter is missing or names another site (no open redirect, see `RedirectTarget`).
    func redirect(_ store: StoreRequest, to fallback: String, extra: [QueryItem] = [], cookies: [String] = []) -> Response {
        var target = RedirectTarget.allowed(store["URL"] ?? "", host: store.request.headers["Host"]) ?? fallback
        if !target.hasPrefix("/") && !RedirectTarget.isAbsolute(target) {
            var query = baseQuery(store.language)
            for item in extra { query += "&\(item.name)=\(item.value?.percentEncoded ?? "")" }
            target = store.basePath + Self.servlet + (target.contains("?") ? target + "&" + query : target + "?" + query)
        }
        var headers: HTTPHeaders = ["Location": target, "Content-Type": "text/html; charset=UTF-8"]
        for cookie in cookies { headers.add("Set-Cookie", cookie) }
        return Response(status: 302, headers: headers, body: ResponseBody(""))
    }
}

extension StoreRequest {
    /// The same request with parameters taken from an SEO URL.
    init(_ request: Request, parameters: [QueryItem], from original: StoreRequest) {
        var copy = request
        copy.queryItems = parameters
        self.init(copy)
        session = original.session
        staleUserIds = original.staleUserIds
        basePath = original.basePath
        secureOrigin = original.secureOrigin
    }
}

/// A template object of these members, in order.
func object(_ members: TemplateMembers) -> TemplateValue { .object(TemplateObject(members)) }

/// Members of a template object, labelled as `TemplateObject` takes them (an unlabelled tuple
/// array would be converted element by element on every page).
typealias TemplateMembers = [(key: String, value: TemplateValue)]
