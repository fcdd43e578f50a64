/// The other names WebSphere Commerce 7 knows the storefront's pages by, each resolved to the
/// Madisons mobile view Understudy renders for it. The `m…` views themselves, `MobileLogonForm`
/// and `MobileUserRegistrationAddForm` are the Madisons mobile starter store's own actions (its
/// struts configuration); sources for the others are in docs/commerce.md.
enum ViewNames {
    /// The view `name` is rendered by: itself, or the mobile view it stands for.
    static func canonical(_ name: String) -> String {
        if let mobile = aliases[name] { return mobile }
        // The smartphone (m20…) and tablet (t…) starter stores of later feature packs name their
        // views as the mobile store does, with their own prefix.
        if name.hasPrefix("m20"), name.count > 3 { return canonical("m" + name.dropFirst(3)) }
        if name.hasPrefix("t"), let second = name.dropFirst().first, second.isUppercase { return canonical("m" + name.dropFirst()) }
        return name
    }

    /// Store-wide URL commands and views (the desktop store's, which also answer a device's
    /// request), and the tablet page the seed names.
    private static let aliases: [String: String] = [
        "mTopCategoriesDisplay": "mTopCategoriesDisplayView",
        "TopCategoriesDisplayView": "mTopCategoriesDisplayView",
        "CategoryDisplay": "mCategoriesDisplayView",
        "ProductDisplay": "mProductDisplayView",
        "ProductDisplayView": "mProductDisplayView",
        "CatalogSearchResultView": "mCatalogSearchResultView",
        "OrderItemDisplay": "mOrderItemDisplay",
        "OrderItemDisplayView": "mOrderItemDisplay",
        "AjaxOrderItemDisplayView": "mOrderItemDisplay",
        "LogonForm": "MobileLogonForm",
        "AjaxLogonForm": "MobileLogonForm",
        "UserRegistrationForm": "MobileUserRegistrationAddForm",
        "InterestItemDisplay": "mInterestListDisplay",
        "AddressBookForm": "mAddressBookDisplay",
        "AjaxStoreLocatorDisplayView": "mStoreLocatorView",
        // tablet/UserArea/AccountSection/MyAddressUpdateView.jsp, which carries the contact picker.
        "MyAddressUpdateView": "mAddressForm",
    ]
}
