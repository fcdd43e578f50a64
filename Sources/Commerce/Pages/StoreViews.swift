import HTTPServer
import MockCore

/// The storefront's views by name, each rendered by the feature type that owns it.
struct StoreViews: Sendable {
    /// A view the store renders, by the name a request gives (after `ViewNames.canonical`).
    enum Page {
        case home, topCategories, category, product, searchResults
        case cart, checkoutAddress, checkoutSummary, order, orderHistory
        case logonForm, registrationForm, account, addressBook, addressForm
        case wishList, emailWishList, wishListSent
        case storeLocator, storeDetail, storeMap

        init?(name: String) {
            switch name {
            case "StoreView", "mStoreView", "mIndex", "TopCategoriesDisplay": self = .home
            case "mTopCategoriesDisplayView": self = .topCategories
            case "mCategoriesDisplayView": self = .category
            case "mProductDisplayView": self = .product
            case "mCatalogSearchResultView": self = .searchResults
            case "mOrderItemDisplay": self = .cart
            case "MobileLogonForm", "mCheckoutLogon", "ReLogonFormView": self = .logonForm
            case "MobileUserRegistrationAddForm": self = .registrationForm
            case "mMyAccountDisplay": self = .account
            case "mAddressBookDisplay": self = .addressBook
            case "mAddressForm": self = .addressForm
            case "mInterestListDisplay": self = .wishList
            case "mEmailWishlistDisplay": self = .emailWishList
            case "mSendWishListMessage": self = .wishListSent
            case "mStoreLocatorView": self = .storeLocator
            case "mStoreDetailView": self = .storeDetail
            case "mStoreMapView": self = .storeMap
            case "mOrderBillingAddressSelection": self = .checkoutAddress
            case "mOrderShippingBillingSummaryView": self = .checkoutSummary
            case "mOrderShippingBillingConfirmationView", "mOrderDetails": self = .order
            case "mOrderHistory": self = .orderHistory
            default: return nil
            }
        }

        /// The page depends only on the request, the catalog and the header's cart count, so it
        /// can be kept as rendered.
        var showsOnlyTheCatalog: Bool {
            switch self {
            case .home, .topCategories, .category, .product, .searchResults, .storeLocator, .storeDetail, .storeMap: true
            default: false
            }
        }
    }

    let renderer: PageRenderer
    let catalogPages: CatalogPages
    let searchResults: SearchResultsPage
    let checkout: CheckoutPages
    let account: AccountPages
    let wishList: WishListPages
    let storeLocator: StoreLocatorPages

    func render(_ page: Page, _ store: StoreRequest, _ context: RequestContext) -> Response {
        switch page {
        case .home: catalogPages.home(store, context)
        case .topCategories: catalogPages.topCategories(store, context)
        case .category: catalogPages.category(store, context)
        case .product: catalogPages.product(store, context)
        case .searchResults: searchResults.render(store, context)
        case .cart: checkout.cart(store, context)
        case .checkoutAddress: signedIn(store, context) { checkout.address(store, context, $0) }
        case .checkoutSummary: signedIn(store, context) { checkout.summary(store, context, $0) }
        case .order: signedIn(store, context) { checkout.order(store, context, $0) }
        case .orderHistory: signedIn(store, context) { checkout.history(store, context, $0) }
        case .logonForm: account.logonForm(store, context)
        case .registrationForm: account.registrationForm(store, context)
        case .account: signedIn(store, context) { _ in account.account(store, context) }
        case .addressBook: signedIn(store, context) { _ in account.addressBook(store, context) }
        case .addressForm: signedIn(store, context) { _ in account.addressForm(store, context) }
        case .wishList: wishList.list(store, context)
        case .emailWishList: wishList.emailForm(store, context)
        case .wishListSent: wishList.sent(store, context)
        case .storeLocator: storeLocator.form(store, context)
        case .storeDetail: storeLocator.physicalStore("StoreDetail", store, context)
        case .storeMap: storeLocator.physicalStore("StoreMap", store, context)
        }
    }

    /// Account pages: the logon form for a guest, the error page for a session that expired.
    private func signedIn(_ store: StoreRequest, _ context: RequestContext, _ page: (ShopperSession) -> Response) -> Response {
        if store.sessionExpired {
            return renderer.errorPage(store, message: renderer.label("errorSessionExpired", store.language), scope: context.scope)
        }
        guard let session = store.session, session.logonId != nil else { return account.logonForm(store, context) }
        return page(session)
    }
}
