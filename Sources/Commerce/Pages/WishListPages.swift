import HTTPServer
import MockCore
import Templating

/// The wish list, the form that e-mails it, and the page after it was "sent".
struct WishListPages: Sendable {
    let catalog: CommerceCatalog
    let renderer: PageRenderer
    let values: StoreValues
    let shopping: ShoppingStateKey

    /// `mInterestListDisplay`.
    func list(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let items = store.session.map { session in shopping.withState(context.scope) { $0.wishlists[session.userId] ?? [] } } ?? []
        return renderer.page(
            "InterestListDisplay", store, scope: context.scope, title: renderer.label("wishList", store.language),
            [
                (
                    "items",
                    .array(
                        items.compactMap { catalog.item($0) }.map { item in
                            object([("sku", values.skuValue(item.sku)), ("product", values.productValue(item.product, store.language))])
                        })
                ),
                ("listId", .string(store.session.map { String($0.userId) } ?? "")),
            ])
    }

    /// `mEmailWishlistDisplay`: the e-mail form, the sender filled in from the account.
    func emailForm(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let shopper = shopping.shopper(store, context.scope)
        return renderer.page(
            "EmailWishlist", store, scope: context.scope, title: renderer.label("emailWishList", store.language),
            [
                ("listId", .string(store.session.map { String($0.userId) } ?? "")),
                ("senderName", .string(shopper.map { "\($0.firstName) \($0.lastName)" } ?? "")),
                ("senderEmail", .string(shopper?.email ?? "")),
                ("error", .string(store["errorMessage"] ?? "")),
            ])
    }

    /// `mSendWishListMessage`.
    func sent(_ store: StoreRequest, _ context: RequestContext) -> Response {
        renderer.page(
            "SendWishListMessage", store, scope: context.scope, title: renderer.label("emailWishList", store.language),
            [
                ("recipient", .string(store.text("recipient")))
            ])
    }
}
