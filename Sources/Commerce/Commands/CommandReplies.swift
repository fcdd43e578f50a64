import HTTPServer
import MockCore

/// How a storefront command answers: a redirect to its `URL` parameter after it ran, or the page
/// named by `errorViewName` (or the error page) with a message; and the session it acts for.
struct CommandReplies: Sendable {
    let views: StoreViews
    let shopping: ShoppingStateKey

    var renderer: PageRenderer { views.renderer }
    private var storeId: String { renderer.store.storeId }

    func label(_ key: String, _ language: StoreLanguage) -> String {
        renderer.label(key, language)
    }

    /// A redirect to the `URL` parameter (a view name, a path, or a URL of this server), as the
    /// servlet does after a successful command; to `fallback` when the parameter is missing or
    /// names another site (no open redirect, see `RedirectTarget`).
    func redirect(_ store: StoreRequest, to fallback: String, extra: [QueryItem] = [], cookies: [String] = []) -> Response {
        var target = RedirectTarget.allowed(store["URL"] ?? "", host: store.request.headers["Host"]) ?? fallback
        if !target.hasPrefix("/") && !RedirectTarget.isAbsolute(target) {
            var query = renderer.baseQuery(store.language)
            for item in extra { query += "&\(item.name)=\(item.value?.percentEncoded ?? "")" }
            target = store.basePath + CommerceBackend.servlet + (target.contains("?") ? target + "&" + query : target + "?" + query)
        }
        var headers: HTTPHeaders = ["Location": target, "Content-Type": "text/html; charset=UTF-8"]
        for cookie in cookies { headers.add("Set-Cookie", cookie) }
        return Response(status: 302, headers: headers, body: ResponseBody(""))
    }

    /// The page named by `errorViewName` (or the error page) with `message`.
    func failure(_ store: StoreRequest, _ context: RequestContext, _ message: String, cookies: [String] = []) -> Response {
        let view = store.text("errorViewName")
        if !view.isEmpty, view != "GenericApplicationError", let page = StoreViews.Page(name: view) {
            var parameters = store.parameters.filter { $0.name != "errorMessage" }
            parameters.append(QueryItem(name: "errorMessage", value: message))
            var response = views.render(page, StoreRequest(store.request, parameters: parameters, from: store), context)
            for cookie in cookies { response.headers.add("Set-Cookie", cookie) }
            return response
        }
        return renderer.errorPage(store, message: message, scope: context.scope)
    }

    /// The sign-in form, for a command that needs a signed-in shopper.
    func logonForm(_ store: StoreRequest, _ context: RequestContext) -> Response {
        views.account.logonForm(store, context)
    }

    /// The shopper's session, a new guest's when there is none yet (with the cookies to set).
    func session(_ store: StoreRequest, _ context: RequestContext) -> (ShopperSession, cookies: [String]) {
        if let session = store.session { return (session, []) }
        let guest = shopping.withState(context.scope) { $0.newGuest() }
        return (
            guest,
            store.staleUserIds.flatMap { StoreCookies.cleared(userId: $0) } + StoreCookies.session(guest, storeId: storeId, language: store.language)
        )
    }

    /// The cookies of a new session, the old ones (the guest's, stale ones) expired.
    func cookies(_ store: StoreRequest, replacingWith session: ShopperSession) -> [String] {
        let old = (store.session.map { [$0.userId] } ?? []) + store.staleUserIds
        return old.filter { $0 != session.userId }.flatMap { StoreCookies.cleared(userId: $0) }
            + StoreCookies.session(session, storeId: storeId, language: store.language)
    }
}
