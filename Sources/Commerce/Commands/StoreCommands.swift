import HTTPServer
import MockCore

/// The storefront's commands by name, each run by the feature type that owns it. A command
/// changes the shopper's state and redirects to its `URL` parameter, or shows its
/// `errorViewName` page (or the error page) with a message.
struct StoreCommands: Sendable {
    /// A command, by any of the names WebSphere Commerce 7 knows it by.
    enum Command {
        case addToCart, updateCart, removeFromCart, submitOrder
        case logon, logoff, register, saveAddress, deleteAddress
        case addToWishList, removeFromWishList, emailWishList

        init?(name: String) {
            switch name {
            case "OrderChangeServiceItemAdd", "OrderItemAdd": self = .addToCart
            case "OrderChangeServiceItemUpdate", "OrderItemUpdate": self = .updateCart
            case "OrderChangeServiceItemDelete", "OrderItemDelete": self = .removeFromCart
            case "Logon": self = .logon
            case "Logoff": self = .logoff
            case "PersonProcessServicePersonRegister", "UserRegistrationAdd": self = .register
            case "PersonChangeServiceAddressAdd", "PersonChangeServiceAddressUpdate": self = .saveAddress
            case "PersonChangeServiceAddressDelete": self = .deleteAddress
            case "InterestItemAdd": self = .addToWishList
            case "InterestItemDelete": self = .removeFromWishList
            case "InterestItemListMessage": self = .emailWishList
            case "OrderProcessServiceOrderSubmit", "OrderProcessServiceOrderPrepare": self = .submitOrder
            default: return nil
            }
        }
    }

    let cart: CartCommands
    let account: AccountCommands
    let wishList: WishListCommands

    func run(_ command: Command, _ store: StoreRequest, _ context: RequestContext) -> Response {
        switch command {
        case .addToCart: cart.add(store, context)
        case .updateCart: cart.update(store, context)
        case .removeFromCart: cart.remove(store, context)
        case .submitOrder: cart.submitOrder(store, context)
        case .logon: account.logon(store, context)
        case .logoff: account.logoff(store, context)
        case .register: account.register(store, context)
        case .saveAddress: account.saveAddress(store, context)
        case .deleteAddress: account.deleteAddress(store, context)
        case .addToWishList: wishList.add(store, context)
        case .removeFromWishList: wishList.remove(store, context)
        case .emailWishList: wishList.email(store, context)
        }
    }
}
