import HTTPServer
import Logging
import MockCore

/// The wish list's commands: `InterestItemAdd`, `InterestItemDelete` and
/// `InterestItemListMessage` (the list e-mailed: the addresses are checked and the message is
/// logged, nothing is sent).
struct WishListCommands: Sendable {
    let catalog: CommerceCatalog
    let shopping: ShoppingStateKey
    let replies: CommandReplies
    let logger: Logger
    /// One line per e-mail a client asks for, with its addresses: throttled and escaped.
    let mailLog = LogThrottle { count, seconds in "commerce: \(count) more wish list e-mail(s) in the last \(seconds) s" }

    func add(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let entry = store["catEntryId"] ?? store["productId"] ?? ""
        guard let item = catalog.item(entry) else {
            return replies.failure(store, context, replies.label("errorNoProduct", store.language) + PageRenderer.naming("catEntryId", entry))
        }
        let (session, cookies) = replies.session(store, context)
        shopping.withState(context.scope) { state in
            if !(state.wishlists[session.userId] ?? []).contains(item.sku.id) { state.wishlists[session.userId, default: []].append(item.sku.id) }
        }
        return replies.redirect(store, to: "mInterestListDisplay", cookies: cookies)
    }

    func remove(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let entry = store.text("catEntryId")
        if let session = store.session {
            shopping.withState(context.scope) { $0.wishlists[session.userId]?.removeAll { $0 == entry } }
        }
        return replies.redirect(store, to: "mInterestListDisplay")
    }

    func email(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let recipient = store.text("recipient")
        let sender = store.text("sender_email")
        for (field, address) in [("recipient", recipient), ("sender_email", sender)] where !Self.isEmailAddress(address) {
            return replies.failure(
                store, context, replies.label("errorEmailAddress", store.language) + " (\(field): \(address.isEmpty ? "missing" : address))")
        }
        let count = store.session.map { session in shopping.withState(context.scope) { $0.wishlists[session.userId]?.count ?? 0 } } ?? 0
        for line in mailLog.lines({
            "commerce: wish list of \(count) item(s) e-mailed from \(LogText.escaped(sender)) to \(LogText.escaped(recipient)) (not sent: emulated)"
        }) {
            logger.info("\(line)")
        }
        return replies.redirect(store, to: "mSendWishListMessage", extra: [QueryItem(name: "recipient", value: recipient)])
    }

    static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !text.contains(" ")
    }
}
