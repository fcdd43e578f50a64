import Foundation
import HTTPServer
import Logging
import MockCore

/// The storefront as loaded from its folder: the catalog, stores, shoppers and page templates, and
/// the pages, commands and services over them (`CommerceBackend` serves it once loaded).
final class Storefront: Sendable {
    let catalog: CommerceCatalog
    let physicalStores: PhysicalStores
    /// Each scope's shoppers, sessions, carts, wish lists and orders, in MockCore's scope store.
    private let shopping: ShoppingStateKey
    /// Catalog pages as rendered for a shopper's cart count (they depend on nothing else that
    /// changes): browsing is answered from memory. Set-Cookie is added per request.
    private let pageCache: AnswerCache
    private let renderer: PageRenderer
    private let views: StoreViews
    private let commands: StoreCommands
    private let seoURLs: SEOURLs
    private let searchResources: SearchResources
    private let assets: StoreAssets

    /// Loads `directory` (normally `stubs/commerce`); problems are logged with their file and
    /// field, and whatever loaded is served.
    init(directory: URL, logger: Logger) {
        let (loaded, problems) = Self.load(directory)
        for problem in problems { logger.warning("commerce: \(problem)") }
        pageCache = AnswerCache(maxEntries: loaded.settings.responseCache, maxBytes: loaded.settings.responseCacheBytes)
        let catalog = loaded.catalog
        self.catalog = catalog
        physicalStores = loaded.stores
        let shopping = ShoppingStateKey(shoppers: loaded.shoppers)
        self.shopping = shopping
        let renderer = PageRenderer(pages: loaded.pages, store: catalog.store, shopping: shopping)
        let values = StoreValues(catalog: catalog)
        self.renderer = renderer
        let views = StoreViews(
            renderer: renderer,
            catalogPages: CatalogPages(catalog: catalog, renderer: renderer, values: values),
            searchResults: SearchResultsPage(catalog: catalog, renderer: renderer, values: values),
            checkout: CheckoutPages(renderer: renderer, values: values, shopping: shopping),
            account: AccountPages(renderer: renderer, values: values, shopping: shopping),
            wishList: WishListPages(catalog: catalog, renderer: renderer, values: values, shopping: shopping),
            storeLocator: StoreLocatorPages(
                physicalStores: loaded.stores, settings: loaded.settings, renderer: renderer, values: values, logger: logger))
        self.views = views
        let replies = CommandReplies(views: views, shopping: shopping)
        commands = StoreCommands(
            cart: CartCommands(catalog: catalog, shopping: shopping, replies: replies),
            account: AccountCommands(storeId: catalog.store.storeId, shopping: shopping, replies: replies),
            wishList: WishListCommands(catalog: catalog, shopping: shopping, replies: replies, logger: logger))
        seoURLs = SEOURLs(catalog: catalog)
        searchResources = SearchResources(catalog: catalog)
        assets = StoreAssets(directory: directory.appendingPathComponent("assets"))
    }

    var report: BackendReport {
        BackendReport(
            fixtures: [
                ("products", catalog.products.count), ("departments", catalog.departments.count),
                ("stores", physicalStores.stores.count),
            ],
            cache: pageCache.statistics)
    }

    private static func load(_ directory: URL)
        -> ((catalog: CommerceCatalog, stores: PhysicalStores, shoppers: [Shopper], pages: StorePages, settings: CommerceSettings), [FixtureError])
    {
        var problems: [FixtureError] = []
        let (settings, problem) = CommerceSettings.read(from: directory)
        problems += problem.map { [$0] } ?? []
        var catalog = CommerceCatalog.empty
        var stores = PhysicalStores(stores: [])
        var shoppers: [Shopper] = []
        do { catalog = try CommerceCatalog.load(directory.appendingPathComponent("catalog.json")) } catch { problems.append(error) }
        do { stores = try PhysicalStores.load(directory.appendingPathComponent("stores.json")) } catch { problems.append(error) }
        do { shoppers = try ShopperFixtures.load(directory.appendingPathComponent("shoppers.json")) } catch { problems.append(error) }
        let (pages, pageProblems) = StorePages.load(directory)
        return ((catalog, stores, shoppers, pages, settings), problems + pageProblems)
    }

    /// Every problem with the folder's files, for `understudy check`.
    static func check(directory: URL) -> [FixtureError] {
        load(directory).1
    }

    // MARK: Requests

    func handle(_ request: Request, _ context: RequestContext) -> Reply {
        let path = request.path
        if path.hasPrefix("/wcsstore/") { return .response(assets.response(for: path, catalog: catalog)) }
        if path.hasPrefix("/search/resources/") || path.hasPrefix("/wcs/resources/") {
            return .response(searchResources.response(for: request, basePath: context.basePath))
        }
        var store = StoreRequest(request)
        store.basePath = context.basePath
        store.secureOrigin = context.secureOrigin(of: request)
        let presented = store.sessionCookies
        if !presented.isEmpty {
            let known = shopping.withState(context.scope) { state in presented.map { state.sessions[$0.userId] } }
            for (cookie, session) in zip(presented, known) {
                if let session, session.token == cookie.token {
                    if store.session == nil { store.session = session }
                } else {
                    store.staleUserIds.append(cookie.userId)
                }
            }
        }
        let name: String
        // After the servlet's bytes: it is ASCII without a canonical twin, so the Characters
        // `hasPrefix` matched are those bytes (dropping Characters walked them one by one).
        let afterServlet = path.hasPrefix(CommerceBackend.servlet) ? Substring(path.utf8.dropFirst(CommerceBackend.servlet.utf8.count)) : nil
        if let afterServlet, !afterServlet.containsText("/") {
            name = String(afterServlet)
        } else if let seo = seoURLs.view(path) {
            var parameters = store.parameters
            parameters.append(contentsOf: seo.parameters)
            return respond(seo.view, StoreRequest(request, parameters: parameters, from: store), context)
        } else {
            return .response(
                renderer.errorPage(store, message: renderer.label("errorPageNotFound", store.language), status: 404, scope: context.scope))
        }
        // One store is emulated: another's id is a misconfigured client, not a page of this one.
        if let storeId = store["storeId"], storeId != catalog.store.storeId {
            return .response(
                renderer.errorPage(
                    store, message: "The store \(storeId) is not available (this server has store \(catalog.store.storeId)).",
                    status: 404, scope: context.scope))
        }
        return respond(name, store, context)
    }

    private func respond(_ name: String, _ store: StoreRequest, _ context: RequestContext) -> Reply {
        if let command = StoreCommands.Command(name: name) {
            guard store.request.method == .post || store.request.method == .get else {
                return .response(renderer.errorPage(store, message: "\(name) takes GET or POST", status: 405, scope: context.scope))
            }
            return .response(commands.run(command, store, context))
        }
        let name = ViewNames.canonical(name)
        if name == "mStoreLocatorSearchView" || name == "mStoreLocatorResultView" { return views.storeLocator.search(store, context) }
        guard let page = StoreViews.Page(name: name) else {
            let message = renderer.label("errorPageNotFound", store.language) + " (\(name))"
            return .response(withSessionCookies(renderer.errorPage(store, message: message, status: 404, scope: context.scope), store))
        }
        guard page.showsOnlyTheCatalog, store.request.method == .get || store.request.method == .head else {
            return .response(withSessionCookies(views.render(page, store, context), store))
        }
        let cartCount = store.session.map { session in shopping.withState(context.scope) { $0.carts[session.userId]?.itemCount ?? 0 } } ?? 0
        // Shared by the scopes: a shopper's name is the scope's own (registered in it), links
        // carry the scope's path prefix.
        let shopper = store.session?.logonId.map { context.scope.name + "/" + $0 } ?? "-"
        let key =
            "\(store.device.name) \(store.language.rawValue) \(shopper) \(cartCount) \(store.secureOrigin ?? "-") \(store.basePath)\(store.request.target)"
        if let cached = pageCache.response(for: key) { return .response(withSessionCookies(cached, store)) }
        var rendered = views.render(page, store, context)
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
            !response.headers.values(for: "Set-Cookie").contains(where: { $0.hasPrefix("WC_ACTIVEPOINTER=") })
        {
            for cookie in StoreCookies.established(storeId: catalog.store.storeId, language: store.language) {
                response.headers.add("Set-Cookie", cookie)
            }
        }
        if let forced = store["deviceFormat"], DeviceFormat(name: forced) != nil {
            response.headers.add("Set-Cookie", "\(DeviceFormat.cookie)=\(store.device.name); Path=/")
        }
        return response
    }
}
