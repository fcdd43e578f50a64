import HTTPServer
import MockCore

/// The commands of the shopper's account: `Logon`, `Logoff`, `PersonProcessServicePersonRegister`
/// and the address book's `PersonChangeServiceAddressAdd`/`…Update`/`…Delete`.
struct AccountCommands: Sendable {
    let storeId: String
    let shopping: ShoppingStateKey
    let replies: CommandReplies

    func logon(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let logonId = store.text("logonId")
        let password = store["logonPassword"] ?? ""
        let account = shopping.withState(context.scope) { $0.accounts[logonId.lowercased()] }
        guard let account, account.password == password else {
            let message = replies.label(logonId.isEmpty ? "errorLogonIdMissing" : "errorBadPassword", store.language)
            var parameters = store.parameters.filter { $0.name != "logonPassword" && $0.name != "errorMessage" }
            parameters.append(QueryItem(name: "errorMessage", value: message))
            return replies.logonForm(StoreRequest(store.request, parameters: parameters, from: store), context)
        }
        let previous = store.session
        guard let session = shopping.withState(context.scope, { $0.logon(account.logonId, replacing: previous) }) else {
            return replies.failure(store, context, replies.label("errorBadPassword", store.language))
        }
        return replies.redirect(store, to: "mMyAccountDisplay", cookies: replies.cookies(store, replacingWith: session))
    }

    func logoff(_ store: StoreRequest, _ context: RequestContext) -> Response {
        var cookies = StoreCookies.established(storeId: storeId, language: store.language)
        if let session = store.session {
            shopping.withState(context.scope) { $0.sessions[session.userId] = nil }
            cookies = StoreCookies.cleared(userId: session.userId) + cookies
        }
        return replies.redirect(store, to: "StoreView", cookies: cookies)
    }

    /// Registers (password: 6+ characters, a letter and a digit) and signs in.
    func register(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let logonId = store.text("logonId")
        let password = store["logonPassword"] ?? ""
        let missing = ["logonId", "logonPassword", "firstName", "lastName", "email1"].filter { store.text($0).isEmpty }
        if !missing.isEmpty {
            return replies.failure(store, context, replies.label("errorMissingFields", store.language) + " (" + missing.joined(separator: ", ") + ")")
        }
        if password != (store["logonPasswordVerify"] ?? password) {
            return replies.failure(store, context, replies.label("errorPasswordsDiffer", store.language))
        }
        if password.count < 6 || !password.contains(where: \.isNumber) || !password.contains(where: \.isLetter) {
            return replies.failure(store, context, replies.label("errorWeakPassword", store.language))
        }
        let shopper = Shopper(
            logonId: logonId, password: password, firstName: store.text("firstName"), lastName: store.text("lastName"),
            email: store.text("email1"), preferredLanguage: store.language.rawValue, addresses: [])
        let previous = store.session
        let session: ShopperSession? = shopping.withState(context.scope) { state in
            guard state.accounts[logonId.lowercased()] == nil else { return nil }
            _ = state.register(shopper)
            return state.logon(logonId, replacing: previous)
        }
        guard let session else { return replies.failure(store, context, replies.label("errorLogonIdTaken", store.language) + " (\(logonId))") }
        return replies.redirect(store, to: "mMyAccountDisplay", cookies: replies.cookies(store, replacingWith: session))
    }

    /// Adds an address, or updates the one at `addressIndex`.
    func saveAddress(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session, let logonId = session.logonId else { return replies.logonForm(store, context) }
        let missing = ["nickName", "firstName", "lastName", "address1", "city", "state", "zipCode"].filter { store.text($0).isEmpty }
        if !missing.isEmpty {
            return replies.failure(store, context, replies.label("errorMissingFields", store.language) + " (" + missing.joined(separator: ", ") + ")")
        }
        let address = ShopperAddress(
            nickName: store.text("nickName"), firstName: store.text("firstName"), lastName: store.text("lastName"),
            address1: store.text("address1"), city: store.text("city"), state: store.text("state"),
            zipCode: store.text("zipCode"), country: store["country"].map { $0.isEmpty ? "US" : $0 } ?? "US",
            phone: store.text("phone1"), email: store.text("email1"))
        let index = Int(store.text("addressIndex"))
        let saved: Bool = shopping.withState(context.scope) { state in
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
        guard saved else { return replies.failure(store, context, replies.label("errorAddressNickName", store.language) + " (\(address.nickName))") }
        return replies.redirect(store, to: "mAddressBookDisplay")
    }

    func deleteAddress(_ store: StoreRequest, _ context: RequestContext) -> Response {
        guard let session = store.session, let logonId = session.logonId else { return replies.logonForm(store, context) }
        let index = Int(store.text("addressIndex")) ?? -1
        let deleted: Bool = shopping.withState(context.scope) { state in
            guard var shopper = state.accounts[logonId.lowercased()], shopper.addresses.indices.contains(index) else { return false }
            shopper.addresses.remove(at: index)
            state.accounts[logonId.lowercased()] = shopper
            return true
        }
        guard deleted else { return replies.failure(store, context, replies.label("errorNoAddress", store.language)) }
        return replies.redirect(store, to: "mAddressBookDisplay")
    }
}
