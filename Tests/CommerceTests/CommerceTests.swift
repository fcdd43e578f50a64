import Foundation
import HTTPServer
import MockCore
import Templating
import Testing
import UnderstudyTesting

@testable import Commerce

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The storefront behind the router in memory, browsed as the hybrid app's web view does (the
/// hybrid app's own test, ClientDesignTests, browses it over a socket).
@Suite struct CommerceTests {
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("stubs")
    static let servlet = "/webapp/wcs/stores/servlet/"
    static let base = "storeId=10152&catalogId=10051&langId=-1"

    /// The storefront.
    static func start() throws -> (BackendTester, CommerceBackend) {
        let commerce = CommerceBackend(directory: stubs.appendingPathComponent("commerce"))
        return (try BackendTester(backends: [commerce]), commerce)
    }

    /// The backend's storefront, once its background load is done.
    static func storefront(_ commerce: CommerceBackend) -> Storefront {
        while true {
            if let storefront = commerce.storefront { return storefront }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    static func view(_ name: String, _ query: String = "") -> String {
        servlet + name + "?" + base + (query.isEmpty ? "" : "&" + query)
    }

    @Test func theFixturesLoadWithoutProblems() {
        #expect(CommerceBackend.check(directory: Self.stubs.appendingPathComponent("commerce")).isEmpty)
        let commerce = Self.storefront(CommerceBackend(directory: Self.stubs.appendingPathComponent("commerce")))
        #expect(commerce.catalog.products.count >= 150)
        #expect(commerce.physicalStores.stores.count >= 40)
    }

    @Test func badFixturesAreReportedWithFileAndPlace() throws {
        let shipped = Self.stubs.appendingPathComponent("commerce")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("commerce-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: shipped, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let catalogFile = copy.appendingPathComponent("catalog.json")
        let catalog = try String(contentsOf: catalogFile, encoding: .utf8)
        try catalog.replacingOccurrences(of: #""category": "10002""#, with: #""category": "10099""#).write(
            to: catalogFile, atomically: true, encoding: .utf8)
        try "<p>{{#each products}}</p>\n".write(to: copy.appendingPathComponent("templates/ProductListing.html"), atomically: true, encoding: .utf8)
        let problems = CommerceBackend.check(directory: copy).map(String.init(describing:))
        #expect(
            problems.contains {
                $0.hasSuffix("catalog.json: products[0].category: no category '10099' (a product is listed in a category, not a department)")
            }, "\(problems)")
        #expect(problems.contains { $0.contains("templates/ProductListing.html:1: column") }, "\(problems)")
        // The server still starts and answers with what loaded.
        let server = try BackendTester(backends: [CommerceBackend(directory: copy)])
        #expect(try StoreBrowser(server).get(Self.view("mStoreLocatorView")).status == 200)
    }

    @Test func pricesAsTheStoreShowsThem() {
        let cents: [Int] = ["29.99", "12", "1234.5", "-3.99", ""].map(Money.cents)
        #expect(cents == [2999, 1200, 123450, -399, 0])
        #expect(Money.cents("0.125") == 13)
        #expect(Money.format(cents: 123450) == "$1,234.50" && Money.format(cents: 5) == "$0.05" && Money.format(cents: -1_234_567) == "-$12,345.67")
        #expect(Money.plain(Decimal(string: "4.1986")!) == "4.20")
        // Every place where a group or the sign begins, written from the bytes up.
        #expect(
            [0, -5, 100, 99_999, 100_000, 12_345_678, 100_000_000_000].map { Money.format(cents: $0) }
                == ["$0.00", "-$0.05", "$1.00", "$999.99", "$1,000.00", "$123,456.78", "$1,000,000,000.00"])
        #expect(Money.format(cents: .min) == "-$92,233,720,368,547,758.08")
    }

    @Test func productPricesMadeAtLoadAreWhatTheMoneyHelperShows() throws {
        let catalog = try CommerceCatalog.load(Self.stubs.appendingPathComponent("commerce/catalog.json"))
        let values = StoreValues(catalog: catalog)
        let helper = try Template("{{money price}}|{{#if listPrice}}{{money listPrice}}{{/if}}", helpers: StorePages.helpers)
        let formatted = try Template("{{formattedPrice}}|{{formattedListPrice}}")
        for product in catalog.products {
            for language in [StoreLanguage.english, .french] {
                let value = values.productValue(product, language)
                #expect(formatted.render(value) == helper.render(value), "\(product.id)")
            }
        }
    }

    @Test func searchWordsFromTheBytesAsFromCharacters() {
        let texts = [
            "dress", "Dresses", "  red  SHOES ", "t-shirts,boxes;watches", "glass", "bus", "a1 b2", "", "...", "x\r\ny",
            "caf\u{E9}s", "\u{212A}elvins", "dress\u{301}", "ÉCHARPES", "100% wool", "o'neil's", "tab\tsep", "UPPER-case",
        ]
        for text in texts {
            #expect(CommerceCatalog.words(text) == CommerceCatalog.wordsByCharacter(text), "\(text.unicodeScalars.map(\.value))")
        }
        #expect(CommerceCatalog.words("Red DRESSES, boxes & shoes") == ["red", "dress", "box", "shoe"])
    }

    @Test func foundationsSearchAndTrimmingAnsweredFromTheBytesAsFoundationAnswers() {
        let texts = [
            "", " ", "\t", "a", " a ", "a b", "\u{00A0}a\u{00A0}", "\u{3000}x", "é", "e\u{301}", "iPad", "xiPadx", "iPa",
            "iPad\u{301}", "/", "a/b", "/\u{301}", "Safari/537", "\u{212A}", "K",
        ]
        for text in texts {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(text.unicodeScalars.map(\.value))")
            for needle in ["iPad", "/", "Safari/", "K", "e", "é", "a b"] {
                #expect(text.containsText(needle) == text.contains(needle), "\(text.unicodeScalars.map(\.value)) \(needle)")
            }
        }
    }

    @Test func storeViewPicksThePageSetAndEstablishesTheSession() throws {
        let (server, _) = try Self.start()
        let phone = StoreBrowser(server, userAgent: StoreBrowser.iPhoneHybrid)
        let home = try phone.get(Self.view("StoreView"))
        #expect(home.status == 200 && home.header("Content-Type") == "text/html; charset=UTF-8")
        #expect(home.html.contains("class=\"iPhoneHybrid view-StoreView\""))
        #expect(home.html.contains("/wcsstore/Madisons/mobile20/iPhoneHybrid/css/hybrid.css"))
        // Inside the app the native shell draws the header and tab bar.
        #expect(!home.html.contains("id=\"header\"") && !home.html.contains("id=\"tabBar\""))
        #expect(phone.cookie("WC_SESSION_ESTABLISHED") == "true" && phone.cookie("WC_ACTIVEPOINTER") == "-1%2C10152")

        let tablet = try StoreBrowser(server, userAgent: StoreBrowser.iPadHybrid).get(Self.view("StoreView"))
        #expect(tablet.html.contains("class=\"iPadHybrid") && tablet.html.contains("/wcsstore/Madisons/tablet/iPadHybrid/css/hybrid.css"))
        let safari = try StoreBrowser(server, userAgent: StoreBrowser.mobileSafari).get(Self.view("StoreView"))
        #expect(safari.html.contains("class=\"mobile20") && safari.html.contains("id=\"searchForm\""))
        // Forced by parameter, then remembered in a cookie.
        let forced = StoreBrowser(server, userAgent: StoreBrowser.mobileSafari)
        _ = try forced.get(Self.view("StoreView", "deviceFormat=iPadHybrid"))
        #expect(try forced.get(Self.view("mTopCategoriesDisplayView")).html.contains("class=\"iPadHybrid"))
        // Each stylesheet the pages name is served.
        for sheet in [
            "/wcsstore/Madisons/mobile20/css/common.css", "/wcsstore/Madisons/tablet/css/common.css",
            "/wcsstore/Madisons/mobile20/iPhoneHybrid/css/hybrid.css", "/wcsstore/Madisons/tablet/iPadHybrid/javascript/DeviceEnhancement.js",
        ] {
            #expect(try phone.get(sheet).status == 200, "\(sheet)")
        }
    }

    @Test func catalogPagesFromDepartmentToProduct() throws {
        let (server, commerce) = try Self.start()
        let browser = StoreBrowser(server, userAgent: StoreBrowser.mobileSafari)
        let home = try browser.get(Self.view("StoreView"))
        let apparel = try browser.get(#require(home.link(containing: "categoryId=10001")))
        #expect(apparel.text(id: "categories")?.contains("Dresses") == true)
        let dresses = try browser.get(#require(apparel.link(containing: "mCategoriesDisplayView") { $0.contains("categoryId=10002") }))
        #expect(dresses.html.contains("Silk Wrap Dress"))
        #expect(dresses.text(id: "products") != nil)
        let product = try browser.get(#require(dresses.link(containing: "productId=12001")))
        #expect(product.status == 200 && product.text(id: "offerPrice") == "$29.99")
        // One select per defining attribute, the add-to-cart form posting the service command.
        let form = try #require(product.form("addToCartForm"))
        #expect(form.action == "/webapp/wcs/stores/servlet/OrderChangeServiceItemAdd" && form.method == "post")
        #expect(product.html.contains("name=\"attrValue_Color\"") && product.html.contains("name=\"attrValue_Size\""))
        // The generated image is there.
        let image = try browser.get(#require(Page.matches(#"src="([^"]*_full\.svg)""#, in: product.html).first))
        #expect(image.status == 200 && image.header("Content-Type") == "image/svg+xml" && image.html.contains("<svg"))
        // Paging of a category: 10 products, 4 a page.
        let firstPage = try browser.get(Self.view("mCategoriesDisplayView", "categoryId=10002&pageSize=4"))
        #expect(firstPage.html.components(separatedBy: "<li class=\"product\">").count - 1 == 4)
        let next = try browser.get(#require(firstPage.link(containing: "beginIndex=4")))
        #expect(next.html.contains(Self.storefront(commerce).catalog.products(inCategory: "10002")[4].name.en))
        // SEO URLs reach the same pages.
        #expect(try browser.get("/shop/en/madisonsesite/dresses").html.contains("Silk Wrap Dress"))
        #expect(try browser.get("/shop/en/madisonsesite/mad-app-dres-01").text(id: "offerPrice") == "$29.99")
        #expect(try browser.get("/shop/fr/madisonsesite").html.contains("Magasiner par rayon"))
        // The same SEO URLs under the servlet, as a site without the web server's /shop rewrite has them.
        #expect(try browser.get(Self.servlet + "en/madisonsesite/mad-app-dres-01").text(id: "offerPrice") == "$29.99")
        #expect(try browser.get(Self.servlet + "en/madisonsesite/dresses").html.contains("Silk Wrap Dress"))
        #expect(try browser.get(Self.servlet + "en/othersite/dresses").status == 404)
    }

    /// WebSphere Commerce's own names for the pages — store-wide commands, the smartphone (m20) and
    /// tablet (t) starter stores' views, the seed's tablet address page — render the mobile view.
    @Test func realViewNamesReachTheSamePages() throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server, userAgent: StoreBrowser.iPhoneHybrid)
        let product = try browser.get(Self.view("mProductDisplayView", "productId=12601")).text(id: "offerPrice")
        #expect(product != nil)
        for name in ["ProductDisplay", "ProductDisplayView", "m20ProductDisplayView", "tProductDisplayView"] {
            let page = try browser.get(Self.view(name, "productId=12601"))
            #expect(page.status == 200 && page.text(id: "offerPrice") == product, "\(name)")
        }
        let pages: [(names: [String], canonical: String, query: String)] = [
            (["CategoryDisplay", "m20CategoriesDisplayView"], "mCategoriesDisplayView", "categoryId=10002"),
            (["TopCategoriesDisplayView", "m20TopCategoriesDisplayView", "tTopCategoriesDisplayView"], "mTopCategoriesDisplayView", ""),
            (["CatalogSearchResultView", "m20CatalogSearchResultView"], "mCatalogSearchResultView", "searchTerm=dress"),
            (["OrderItemDisplay", "OrderItemDisplayView", "AjaxOrderItemDisplayView"], "mOrderItemDisplay", ""),
            (["LogonForm", "AjaxLogonForm"], "MobileLogonForm", ""),
            (["UserRegistrationForm"], "MobileUserRegistrationAddForm", ""),
            (["InterestItemDisplay"], "mInterestListDisplay", ""),
            (["AjaxStoreLocatorDisplayView", "m20StoreLocatorView"], "mStoreLocatorView", ""),
        ]
        for (names, canonical, query) in pages {
            let expected = try browser.get(Self.view(canonical, query))
            #expect(expected.status == 200, "\(canonical)")
            for name in names {
                let page = try browser.get(Self.view(name, query))
                #expect(page.status == 200 && page.html == expected.html, "\(name) renders \(canonical)")
            }
        }
        // The seed's tablet address page: a guest is asked to sign in first, as for mAddressForm.
        let tablet = StoreBrowser(server, userAgent: StoreBrowser.iPadHybrid)
        #expect(try tablet.get(Self.view("MyAddressUpdateView")).html == tablet.get(Self.view("mAddressForm")).html)
        #expect(try browser.get(Self.view("NoSuchView")).status == 404)
    }

    /// One store is emulated: a client configured with another store's id gets an error page that
    /// says so, never store 10152's pages.
    @Test func anotherStoresIdIsAnError() throws {
        let (server, _) = try Self.start()
        let page = try StoreBrowser(server, userAgent: StoreBrowser.mobileSafari).get(Self.servlet + "StoreView?storeId=10001&langId=-1")
        #expect(page.status == 404)
        #expect(page.html.contains("The store 10001 is not available"))
    }

    @Test func catalogPagesFromMemoryStillShowEachShoppersCart() throws {
        let (server, _) = try Self.start()
        let shopper = StoreBrowser(server, userAgent: StoreBrowser.mobileSafari)
        let other = StoreBrowser(server, userAgent: StoreBrowser.mobileSafari)
        let page = Self.view("mProductDisplayView", "productId=12601")
        #expect(try shopper.get(page).text(id: "cartCount") == "0")
        _ = try shopper.submit(try shopper.get(page), form: "addToCartForm", [("quantity", "3")])
        #expect(try shopper.get(page).text(id: "cartCount") == "3")
        #expect(try other.get(page).text(id: "cartCount") == "0")
        // Signed in, the same page shows the account links.
        _ = try other.submit(
            try other.get(Self.view("MobileLogonForm")), form: "logonForm", [("logonId", "sam.lee"), ("logonPassword", "shopper123")])
        #expect(try other.get(page).html.contains("id=\"accountLink\""))
        #expect(try StoreBrowser(server, userAgent: StoreBrowser.mobileSafari).get(page).html.contains("id=\"logonLink\""))
    }

    @Test func searchFindsProductsAndPages() throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server)
        let results = try browser.get(Self.view("mCatalogSearchResultView", "searchTerm=dress&pageSize=3&pgGrp=search"))
        #expect(results.text(id: "resultCount")?.hasPrefix("1–3 of 10") == true)
        let second = try browser.get(#require(results.link(containing: "beginIndex=3")))
        #expect(second.text(id: "resultCount")?.hasPrefix("4–6 of 10") == true)
        let nothing = try browser.get(Self.view("mCatalogSearchResultView", "searchTerm=zeppelin"))
        #expect(nothing.text(id: "noResults") == "No products match your search.")
    }

    @Test func searchMatchesEveryWordAndRanksNameMatchesFirst() {
        func product(_ id: String, _ name: String, _ description: String) -> Product {
            Product(
                id: id, partNumber: "P-\(id)", category: "20", name: LocalizedText(en: name, fr: "Robe \(id)"),
                shortDescription: LocalizedText(en: description, fr: nil), longDescription: LocalizedText(en: "", fr: nil),
                manufacturer: "Maker", price: "1.00", listPrice: "1.00", color: "red", attributes: [], skus: [])
        }
        let category = CatalogCategory(
            id: "20", identifier: "C", keyword: "c", name: LocalizedText(en: "Clothes", fr: nil),
            shortDescription: LocalizedText(en: "", fr: nil))
        let department = Department(
            id: "10", identifier: "D", keyword: "d", name: LocalizedText(en: "Women", fr: nil),
            shortDescription: LocalizedText(en: "", fr: nil), categories: [category])
        let catalog = CommerceCatalog(
            store: CommerceCatalog.empty.store, departments: [department],
            products: [
                product("1", "Blue Dress", "in red stripes"), product("2", "Red Shirt", "cotton"), product("3", "Red Dress", "silk"),
            ])
        #expect(catalog.search("red dress", language: .english).map(\.id) == ["3", "1"])
        #expect(catalog.search("DRESSES", language: .english).map(\.id) == ["1", "3"])
        #expect(catalog.search("red", language: .english).map(\.id) == ["2", "3", "1"])
        #expect(catalog.search("red dress women", language: .english).map(\.id) == ["3", "1"])
        #expect(catalog.search("dress zeppelin", language: .english).isEmpty)
        #expect(catalog.search(" ,", language: .english).isEmpty)
        #expect(catalog.search("robe 2", language: .french).map(\.id) == ["2"])
    }

    @Test func cartAddUpdateRemoveWithTotals() throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server)
        let product = try browser.get(Self.view("mProductDisplayView", "productId=12001"))
        // Without a colour and size: the product page again, with the store's message.
        let unchosen = try browser.submit(product, form: "addToCartForm", [("quantity", "1")])
        #expect(unchosen.text(id: "errorMessage")?.contains("Select a value for each attribute") == true)
        let cart = try browser.submit(product, form: "addToCartForm", [("attrValue_Color", "Red"), ("attrValue_Size", "M"), ("quantity", "2")])
        #expect(
            browser.lastSetCookies.contains { $0.hasPrefix("WC_USERACTIVITY_") }
                && browser.lastSetCookies.contains { $0.hasPrefix("WC_AUTHENTICATION_") })
        #expect(cart.target.contains("mOrderItemDisplay") && cart.text(id: "subtotal") == "$59.98")
        // A second product with one SKU.
        let skillet = try browser.get(Self.view("mProductDisplayView", "productId=12601"))
        let withTwo = try browser.submit(skillet, form: "addToCartForm", [("quantity", "1")])
        #expect(withTwo.text(id: "subtotal") == "$201.97")
        // Update the first line's quantity to 1, then remove the second.
        let updated = try browser.submit(withTwo, form: "cartForm", [("quantity_1", "1")])
        #expect(updated.text(id: "subtotal") == "$171.98")
        let removed = try browser.get(#require(updated.links.filter { $0.contains("OrderChangeServiceItemDelete") }.last))
        #expect(removed.text(id: "subtotal") == "$29.99")
        // A bad quantity shows the message, and changes nothing.
        let bad = try browser.submit(removed, form: "cartForm", [("quantity_1", "lots")])
        #expect(bad.text(id: "errorMessage")?.contains("whole number") == true && bad.text(id: "subtotal") == "$29.99")
        // Unknown product: the store's error page, not a stack trace.
        let unknown = try browser.post(
            Self.servlet + "OrderChangeServiceItemAdd", [("storeId", "10152"), ("catEntryId", "999999"), ("quantity", "1")])
        #expect(unknown.status == 200 && unknown.text(id: "errorMessage")?.contains("no longer available") == true)
    }

    @Test func logonLogoffAndExpiredSessions() throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server)
        // A guest's cart is kept when they sign in.
        _ = try browser.post(
            Self.servlet + "OrderChangeServiceItemAdd",
            [("storeId", "10152"), ("catEntryId", "12601"), ("quantity", "1"), ("URL", "mOrderItemDisplay")])
        let form = try browser.get(Self.view("MobileLogonForm"))
        let wrong = try browser.submit(form, form: "logonForm", [("logonId", "jane.doe@example.com"), ("logonPassword", "nope")])
        #expect(wrong.text(id: "errorMessage") == "Either the logon ID or password entered is incorrect. Enter the information again.")
        let account = try browser.submit(
            form, form: "logonForm", [("logonId", "jane.doe@example.com"), ("logonPassword", "passw0rd"), ("URL", "mMyAccountDisplay")])
        #expect(account.text(id: "welcome") == "Welcome, Jane Doe")
        #expect(browser.cookie("WC_USERACTIVITY_2001") != nil && browser.cookie("WC_AUTHENTICATION_2001")?.hasPrefix("2001%2C") == true)
        #expect(try browser.get(Self.view("mOrderItemDisplay")).text(id: "subtotal") == "$141.99")
        // Signed out: the account page asks to sign in again.
        _ = try browser.get(Self.view("Logoff", "URL=StoreView"))
        #expect(browser.cookie("WC_AUTHENTICATION_2001") == nil)
        #expect(try browser.get(Self.view("mMyAccountDisplay")).form("logonForm") != nil)
        // A session the server no longer knows (reset): the error page, not someone's account.
        _ = try browser.submit(form, form: "logonForm", [("logonId", "jane.doe@example.com"), ("logonPassword", "passw0rd")])
        server.router.scopes.default.reset()
        let expired = try browser.get(Self.view("mMyAccountDisplay"))
        #expect(expired.text(id: "errorMessage") == "Your session has timed out. Sign in again to continue.")
    }

    @Test func registrationThenAddressBookWithTheContactPicker() throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server)
        let form = try browser.get(Self.view("MobileUserRegistrationAddForm"))
        let weak = try browser.submit(
            form, form: "registrationForm",
            [
                ("logonId", "kim"), ("logonPassword", "abc"), ("logonPasswordVerify", "abc"),
                ("firstName", "Kim"), ("lastName", "Park"), ("email1", "kim@example.com"),
            ])
        #expect(weak.text(id: "errorMessage")?.contains("at least 6 characters") == true)
        let account = try browser.submit(
            form, form: "registrationForm",
            [
                ("logonId", "kim"), ("logonPassword", "secret1"), ("logonPasswordVerify", "secret1"),
                ("firstName", "Kim"), ("lastName", "Park"), ("email1", "kim@example.com"),
            ])
        #expect(account.text(id: "welcome") == "Welcome, Kim Park")
        let taken = try StoreBrowser(server).submit(
            form, form: "registrationForm",
            [
                ("logonId", "KIM"), ("logonPassword", "secret1"), ("logonPasswordVerify", "secret1"),
                ("firstName", "K"), ("lastName", "P"), ("email1", "k@example.com"),
            ])
        #expect(taken.text(id: "errorMessage")?.contains("already in use") == true)

        let book = try browser.get(#require(account.link(containing: "mAddressBookDisplay")))
        let addForm = try browser.get(#require(book.link(containing: "mAddressForm")))
        // Inside the app, the form offers the native contact picker.
        #expect(addForm.bridgeLinks == ["madisons://localhost/ContactPicker#setContact"])
        #expect(addForm.html.contains("function setContact(contact)"))
        let saved = try browser.submit(
            addForm, form: "addressForm",
            [
                ("nickName", "Home"), ("firstName", "Kim"), ("lastName", "Park"), ("address1", "1 Main St"),
                ("city", "Boston"), ("state", "MA"), ("zipCode", "02116"),
            ])
        #expect(saved.html.contains("data-nick-name=\"Home\"") && saved.html.contains("Boston, MA 02116"))
        let editForm = try browser.get(#require(saved.link(containing: "addressIndex=0") { $0.contains("mAddressForm") }))
        let edited = try browser.submit(editForm, form: "addressForm", [("city", "Cambridge"), ("zipCode", "02139")])
        #expect(edited.html.contains("Cambridge, MA 02139") && !edited.html.contains("Boston"))
        // In Mobile Safari there is no bridge link.
        browser.userAgent = StoreBrowser.mobileSafari
        #expect(try browser.get(Self.view("mAddressForm")).bridgeLinks.isEmpty)
    }

    @Test func wishListAndItsEmailWithTheEmailPicker() throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server)
        let product = try browser.get(Self.view("mProductDisplayView", "productId=12601"))
        let list = try browser.submit(product, form: "addToWishListForm")
        #expect(list.html.contains("Cast Iron Skillet"))
        let email = try browser.get(#require(list.link(containing: "mEmailWishlistDisplay")))
        #expect(email.bridgeLinks == ["madisons://localhost/EmailPicker#setRecipientEmail", "madisons://localhost/EmailPicker#setSenderEmail"])
        let bad = try browser.submit(email, form: "emailWishListForm", [("recipient", "not an address"), ("sender_email", "me@example.com")])
        #expect(bad.text(id: "errorMessage")?.contains("valid e-mail address") == true)
        let sent = try browser.submit(
            email, form: "emailWishListForm", [("recipient", "friend@example.com"), ("sender_name", "Me"), ("sender_email", "me@example.com")])
        #expect(sent.text(id: "wishListSent") == "Your wish list was sent to friend@example.com.")
    }

    @Test func theMountsAreThoseConfigJSONKeeps() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("commerce-mounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: copy) }
        #expect(CommerceBackend(directory: copy).mounts.count == 5, "all five by default")
        try #"{"mounts": ["/shop", "/wcsstore"]}"#.write(to: copy.appendingPathComponent("config.json"), atomically: true, encoding: .utf8)
        #expect(CommerceBackend(directory: copy).mounts == ["/shop", "/wcsstore"])
        try #"{"mounts": ["/shop", "/elsewhere"]}"#.write(to: copy.appendingPathComponent("config.json"), atomically: true, encoding: .utf8)
        #expect(CommerceBackend(directory: copy).mounts.count == 5, "a bad list leaves the defaults")
        #expect(
            CommerceBackend.check(directory: copy).map(String.init(describing:)).contains {
                $0.contains("config.json: mounts: /elsewhere is none of the storefront's")
            })
    }

    @Test func checkoutThenOrderHistory() throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server)
        let logon = try browser.get(Self.view("MobileLogonForm"))
        _ = try browser.submit(logon, form: "logonForm", [("logonId", "jane.doe@example.com"), ("logonPassword", "passw0rd")])
        let product = try browser.get(Self.view("mProductDisplayView", "productId=12601"))
        let cart = try browser.submit(product, form: "addToCartForm", [("quantity", "1")])
        let addresses = try browser.get(#require(cart.link(containing: "mOrderBillingAddressSelection")))
        let summary = try browser.submit(addresses, form: "addressSelectionForm")
        // $141.99, free shipping from $100, 7% tax.
        #expect(summary.text(id: "shippingCharge") == "$0.00" && summary.text(id: "tax") == "$9.94" && summary.text(id: "grandTotal") == "$151.93")
        let confirmation = try browser.submit(summary, form: "orderSubmitForm")
        let orderNumber = try #require(confirmation.text(id: "orderNumber"))
        #expect(confirmation.text(id: "orderTotal") == "$151.93")
        #expect(try browser.get(Self.view("mOrderItemDisplay")).text(id: "cartEmpty") != nil)
        let history = try browser.get(Self.view("mOrderHistory"))
        #expect(history.html.contains("data-order-id=\"\(orderNumber)\""))
        let details = try browser.get(#require(history.link(containing: "orderId=\(orderNumber)")))
        #expect(details.text(id: "orderTotal") == "$151.93" && details.text(id: "orderConfirmation") == nil)
        // Another shopper cannot see it.
        let other = StoreBrowser(server)
        _ = try other.submit(logon, form: "logonForm", [("logonId", "sam.lee"), ("logonPassword", "shopper123")])
        #expect(try other.get(Self.view("mOrderDetails", "orderId=\(orderNumber)")).text(id: "errorMessage")?.contains("could not be found") == true)
    }

    @Test func deletionsAliasesAndResetUndoEverything() async throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server)
        _ = try browser.submit(
            try browser.get(Self.view("MobileLogonForm")), form: "logonForm",
            [("logonId", "marc.tremblay@example.com"), ("logonPassword", "motdepasse1")])
        // Address delete.
        let book = try browser.get(Self.view("mAddressBookDisplay"))
        #expect(book.html.contains("data-nick-name=\"Maison\""))
        let emptied = try browser.get(try #require(book.link(containing: "PersonChangeServiceAddressDelete")))
        #expect(emptied.text(id: "addresses") == nil && emptied.html.contains("Your address book is empty."))
        // Wish list delete.
        _ = try browser.get(Self.view("InterestItemAdd", "catEntryId=12601"))
        let list = try browser.get(Self.view("mInterestListDisplay"))
        let removed = try browser.get(try #require(list.link(containing: "InterestItemDelete")))
        #expect(removed.text(id: "wishListEmpty") == "Your wish list is empty.")
        // The other names the store answers to.
        for view in ["mStoreView", "mIndex", "TopCategoriesDisplay"] {
            #expect(try browser.get(Self.view(view)).html.contains("id=\"departments\""), "\(view)")
        }
        for view in ["mCheckoutLogon", "ReLogonFormView"] {
            #expect(try StoreBrowser(server).get(Self.view(view)).form("logonForm") != nil, "\(view)")
        }
        // A command is GET or POST.
        #expect(await server.raw("PUT", Self.view("Logoff"), headers: [("Host", "x")]).status == 405)
        // POST /__admin/reset: the address is back, the session gone.
        _ = try await server.send("POST", "/__admin/reset")
        #expect(
            try browser.get(Self.view("mAddressBookDisplay")).text(id: "errorMessage") == "Your session has timed out. Sign in again to continue.")
        // Shopping on with the stale cookies: a new guest session replaces them.
        let cart = try browser.get(Self.view("OrderChangeServiceItemAdd", "catEntryId=12601&quantity=1"))
        #expect(cart.text(id: "subtotal") == "$141.99" && browser.cookie("WC_AUTHENTICATION_2002") == nil)
        let again = StoreBrowser(server)
        _ = try again.submit(
            try again.get(Self.view("MobileLogonForm")), form: "logonForm",
            [("logonId", "marc.tremblay@example.com"), ("logonPassword", "motdepasse1")])
        #expect(try again.get(Self.view("mAddressBookDisplay")).html.contains("data-nick-name=\"Maison\""))
    }

    @Test func frenchPagesAndUnknownViews() throws {
        let (server, _) = try Self.start()
        let browser = StoreBrowser(server)
        let french = try browser.get(Self.servlet + "mProductDisplayView?storeId=10152&catalogId=10051&langId=-2&productId=12001")
        #expect(
            french.html.contains("<html lang=\"fr\">") && french.html.contains("Robe portefeuille en soie")
                && french.html.contains("Ajouter au panier"))
        // The language sticks through WC_ACTIVEPOINTER.
        #expect(browser.cookie("WC_ACTIVEPOINTER") == "-2%2C10152")
        let missing = try browser.get(Self.view("mNoSuchView"))
        #expect(missing.status == 404 && missing.text(id: "errorMessage")?.contains("mNoSuchView") == true)
        let noProduct = try browser.get(Self.view("mProductDisplayView", "productId=1"))
        #expect(noProduct.text(id: "errorMessage") == "The product you selected is no longer available. (productId 1)")
    }
}

typealias Page = StoreBrowser.Page
