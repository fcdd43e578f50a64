import Commerce
import Foundation
import Geocoder
import MockCore
import Testing
import UnderstudyTesting

/// Seed 000's iOS hybrid app, as its WebViewController drives the storefront: each tab loads a
/// page with the app's User-Agent, every tap is a link followed or a form posted, and every
/// `madisons://` request is handed to a native request handler (here: the handler's answer is
/// recorded and the named callback is what the app would run).
@Suite struct MadisonsHybridAppTests {
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("stubs")

    /// AppVariables.plist: the defaults the seed documents.
    static let storeId = "10152", storeKeyword = "madisonsesite", masterCatalogId = "10001"

    /// The shell: the pages it pushed and the bridge requests its request handlers got.
    final class WebViewController {
        let browser: StoreBrowser
        var pushed: [String] = []
        var nativeRequests: [(feature: String, callback: String)] = []

        init(_ server: TestServer) { browser = StoreBrowser(server, userAgent: StoreBrowser.iPhoneHybrid) }

        func load(_ target: String) throws -> StoreBrowser.Page {
            let page = try browser.get(target)
            pushed.append(target)
            intercept(page)
            return page
        }

        func submit(_ page: StoreBrowser.Page, form: String, _ values: [(String, String)] = []) throws -> StoreBrowser.Page {
            let next = try browser.submit(page, form: form, values)
            intercept(next)
            return next
        }

        /// shouldStartLoadWithRequest: madisons:// links go to RequestHandlers.plist's handlers.
        private func intercept(_ page: StoreBrowser.Page) {
            for link in page.bridgeLinks {
                let afterHost = link.dropFirst("madisons://localhost/".count)
                let feature = String(afterHost.prefix { $0 != "#" && $0 != "?" })
                let callback = String(link.split(separator: "#").last ?? "")
                nativeRequests.append((feature, callback))
            }
        }
    }

    @Test func theAppShopsThroughTheStorefront() async throws {
        let geocoder = GeocoderBackend(directory: Self.stubs.appendingPathComponent("geocoder"))
        try #require(await poll(until: { geocoder.isReady }, timeout: .seconds(120)))
        let server = try TestServer.start(backends: [CommerceBackend(directory: Self.stubs.appendingPathComponent("commerce")), geocoder])
        defer { server.stop() }
        let app = WebViewController(server)
        let query = "storeId=\(Self.storeId)&catalogId=10051&langId=-1"

        // Home tab: StoreView, the hybrid page set.
        let home = try app.load("/webapp/wcs/stores/servlet/StoreView?storeId=\(Self.storeId)")
        #expect(home.html.contains("class=\"iPhoneHybrid view-StoreView\""))
        // The native search bar calls the search REST service with the master catalog.
        let (body, response) = try await server.send(
            "GET", "/search/resources/store/\(Self.storeId)/productview/bySearchTerm/skillet?catalogId=\(Self.masterCatalogId)")
        #expect(response.statusCode == 200)
        let found = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        let first = try #require((found?["catalogEntryView"] as? [[String: Any]])?.first)
        let productId = try #require(first["uniqueID"] as? String)
        // Its result opens the product page in a new WebViewController.
        let product = try app.load("/webapp/wcs/stores/servlet/mProductDisplayView?\(query)&productId=\(productId)")
        let cart = try app.submit(product, form: "addToCartForm", [("quantity", "2")])
        #expect(cart.text(id: "subtotal") == "$283.98")
        // Account tab: sign in; the SEO home page the app's baseName maps works too.
        #expect(try app.load("/shop/en/\(Self.storeKeyword)").status == 200)
        let logon = try app.load("/webapp/wcs/stores/servlet/MobileLogonForm?\(query)")
        let account = try app.submit(logon, form: "logonForm", [("logonId", "jane.doe@example.com"), ("logonPassword", "passw0rd")])
        #expect(account.text(id: "welcome") == "Welcome, Jane Doe")
        // Address book integration and the e-mail picker.
        _ = try app.load("/webapp/wcs/stores/servlet/mAddressForm?\(query)")
        _ = try app.load("/webapp/wcs/stores/servlet/InterestItemAdd?\(query)&catEntryId=\(productId)&URL=mInterestListDisplay")
        _ = try app.load("/webapp/wcs/stores/servlet/mEmailWishlistDisplay?\(query)")
        // Stores tab: the current location, then a store's map.
        _ = try app.load("/webapp/wcs/stores/servlet/mStoreLocatorView?\(query)")
        let stores = try app.load("/webapp/wcs/stores/servlet/mStoreLocatorResultView?\(query)&geoCodeLatitude=40.75&geoCodeLongitude=-73.99")
        let detail = try app.load(try #require(stores.link(containing: "mStoreDetailView")))
        _ = try app.load(try #require(detail.link(containing: "mStoreMapView")))

        // Every native feature the seed lists was asked for, each with its callback.
        let requests = app.nativeRequests.map { "\($0.feature)#\($0.callback)" }
        #expect(
            requests == [
                "ContactPicker#setContact", "EmailPicker#setRecipientEmail", "EmailPicker#setSenderEmail",
                "CurrentLocation#showStoresNear", "Map#mapClosed",
            ])
        // Checkout to the order confirmation, then the order in the history.
        let addresses = try app.load("/webapp/wcs/stores/servlet/mOrderBillingAddressSelection?\(query)")
        let summary = try app.submit(addresses, form: "addressSelectionForm")
        let confirmation = try app.submit(summary, form: "orderSubmitForm")
        let order = try #require(confirmation.text(id: "orderNumber"))
        #expect(try app.load("/webapp/wcs/stores/servlet/mOrderHistory?\(query)").html.contains("data-order-id=\"\(order)\""))
    }
}
