import HTTPServer
import MockCore
import Templating

/// The shopper's own pages: sign-in and registration forms, the account, the address book and
/// the address form. The account pages are for a signed-in shopper (the caller checks).
struct AccountPages: Sendable {
    let renderer: PageRenderer
    let values: StoreValues
    let shopping: ShoppingStateKey

    /// `MobileLogonForm`: posts `Logon`, then goes to `URL`.
    func logonForm(_ store: StoreRequest, _ context: RequestContext) -> Response {
        renderer.page(
            "Logon", store, scope: context.scope, title: renderer.label("signIn", store.language),
            [
                ("logonId", .string(store.text("logonId"))),
                ("URL", .string(store["URL"] ?? Self.afterLogon(store.request.path))),
                ("error", .string(store["errorMessage"] ?? "")),
            ])
    }

    /// Where signing in leads when the form does not say: back to the page that asked for it.
    private static func afterLogon(_ path: String) -> String {
        let servlet = CommerceBackend.servlet
        let view = path.hasPrefix(servlet) ? ViewNames.canonical(String(path.dropFirst(servlet.count))) : ""
        switch view {
        case "mCheckoutLogon": return "mOrderBillingAddressSelection"
        case let asked where asked.hasPrefix("m"): return asked
        default: return "mMyAccountDisplay"
        }
    }

    /// `MobileUserRegistrationAddForm`: posts `PersonProcessServicePersonRegister`.
    func registrationForm(_ store: StoreRequest, _ context: RequestContext) -> Response {
        renderer.page(
            "UserRegistrationAdd", store, scope: context.scope, title: renderer.label("register", store.language),
            [
                ("error", .string(store["errorMessage"] ?? "")),
                ("logonId", .string(store.text("logonId"))),
                ("firstName", .string(store.text("firstName"))),
                ("lastName", .string(store.text("lastName"))),
                ("email1", .string(store.text("email1"))),
            ])
    }

    /// `mMyAccountDisplay`.
    func account(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let shopper = shopping.shopper(store, context.scope)
        return renderer.page(
            "MyAccountDisplay", store, scope: context.scope, title: renderer.label("myAccount", store.language),
            [
                (
                    "shopper",
                    object([
                        ("firstName", .string(shopper?.firstName ?? "")), ("lastName", .string(shopper?.lastName ?? "")),
                        ("email", .string(shopper?.email ?? "")), ("logonId", .string(shopper?.logonId ?? "")),
                    ])
                )
            ])
    }

    /// `mAddressBookDisplay`: the addresses with edit and delete links.
    func addressBook(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let shopper = shopping.shopper(store, context.scope)
        return renderer.page(
            "AddressBook", store, scope: context.scope, title: renderer.label("addressBook", store.language),
            [
                ("addresses", .array((shopper?.addresses ?? []).enumerated().map { values.addressValue($0.element, index: $0.offset) })),
                ("message", .string(store["message"] ?? "")),
            ])
    }

    /// `mAddressForm`: a new address, or the one at `addressIndex` to edit.
    func addressForm(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let shopper = shopping.shopper(store, context.scope)
        let index = Int(store.text("addressIndex"))
        let address = index.flatMap { shopper?.addresses[safe: $0] }
        return renderer.page(
            "AddressForm", store, scope: context.scope,
            title: renderer.label(address == nil ? "addAddress" : "editAddress", store.language),
            [
                ("address", address.map { values.addressValue($0, index: index ?? 0) } ?? .null),
                ("error", .string(store["errorMessage"] ?? "")),
            ])
    }
}
