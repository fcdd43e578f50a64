import Foundation
import Geocoder
import HTTPServer
import MockCore
import Testing
import UnderstudyTesting

@testable import Commerce

/// The store locator's search through a geocoder, on a socket: the storefront asks it over HTTP
/// (the server's own, or the one config.json names), as the real store asks Google's.
@Suite struct StoreLocatorGeocoderTests {
    @Test func storeLocatorByZipThroughTheGeocoderAndByCoordinates() async throws {
        let geocoder = GeocoderBackend(directory: CommerceTests.stubs.appendingPathComponent("geocoder"))
        try #require(await poll(until: { geocoder.isReady }, timeout: .seconds(120)))
        let server = try TestServer.start(backends: [CommerceBackend(directory: CommerceTests.stubs.appendingPathComponent("commerce")), geocoder])
        defer { server.stop() }
        let browser = StoreBrowser(server)
        let locator = try browser.get(CommerceTests.view("mStoreLocatorView"))
        #expect(locator.bridgeLinks == ["madisons://localhost/CurrentLocation#showStoresNear"])
        // 10018 is in Manhattan: the geocoder places it, the nearest stores come first.
        let byZip = try browser.submit(locator, form: "storeLocatorForm", [("zipOrCity", "10018")])
        let names = Page.matches(#"physicalStoreId=\d+[^"]*">([^<]+)</a>"#, in: byZip.html)
        #expect(names.first == "Madisons New York", "\(names)")
        #expect(byZip.html.contains("miles"))
        // A city the geocoder knows.
        let byCity = try browser.submit(locator, form: "storeLocatorForm", [("zipOrCity", "Seattle, WA")])
        #expect(Page.matches(#"physicalStoreId=\d+[^"]*">([^<]+)</a>"#, in: byCity.html).first == "Madisons Seattle")
        // The device's coordinates (what the native shell hands showStoresNear).
        let near = try browser.get(CommerceTests.view("mStoreLocatorResultView", "geoCodeLatitude=41.88&geoCodeLongitude=-87.63"))
        #expect(Page.matches(#"physicalStoreId=\d+[^"]*">([^<]+)</a>"#, in: near.html).first == "Madisons Chicago")
        let detail = try browser.get(#require(near.link(containing: "mStoreDetailView")))
        #expect(detail.text(id: "storeAddress")?.contains("Chicago, IL") == true)
        let map = try browser.get(#require(detail.link(containing: "mStoreMapView")))
        #expect(map.bridgeLinks.first?.hasPrefix("madisons://localhost/Map?latitude=") == true)
        // The app reads the pin's title as NSURL decodes a custom-scheme query: %20, never '+', for a space.
        let bridgeLink = try #require(map.bridgeLinks.first)
        let pin = try #require(URLComponents(string: bridgeLink))
        #expect(pin.queryItems?.first { $0.name == "title" }?.value == "Madisons Chicago")
        let empty = try browser.submit(locator, form: "storeLocatorForm", [("zipOrCity", "")])
        #expect(empty.text(id: "errorMessage") == "Type a ZIP code or a city.")
    }

    @Test func anotherGeocoderCanPlaceTheStoreLocatorsSearch() throws {
        // A geocoder answering XML, as the app's "Geocoder URL" setting names one: every place is in Seattle.
        let geocoder = try TestServer.start(
            handler: ClosureHandler { request, responder in
                responder.send(
                    Response(
                        status: 200, headers: ["Content-Type": "application/xml; charset=UTF-8"],
                        body: ResponseBody(
                            "<GeocodeResponse><status>OK</status><result><geometry><location><lat>47.6062</lat><lng>-122.3321</lng></location></geometry></result></GeocodeResponse>"
                        )))
            })
        defer { geocoder.stop() }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("commerce-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: CommerceTests.stubs.appendingPathComponent("commerce"), to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try #"{"geocoder": "\#(geocoder.server.baseURL)/maps/api/geocode/xml"}"#.write(
            to: copy.appendingPathComponent("config.json"), atomically: true, encoding: .utf8)
        let server = try BackendTester(backends: [CommerceBackend(directory: copy)])
        let results = try StoreBrowser(server).get(CommerceTests.view("mStoreLocatorSearchView", "zipOrCity=Springfield"))
        #expect(Page.matches(#"physicalStoreId=\d+[^"]*">([^<]+)</a>"#, in: results.html).first == "Madisons Seattle")
        // Without a geocoder, the fixture's own city names are matched. The storefront asks its own
        // server's geocoder, which a server answering in memory has no address for: it asks none.
        var own = CommerceSettings()
        #expect(
            own.geocodingURL("Boston MA", localAuthority: "127.0.0.1:8080")
                == "http://127.0.0.1:8080/maps/api/geocode/json?sensor=false&address=Boston%20MA")
        #expect(own.geocodingURL("Boston", localAuthority: "") == nil)
        own.geocoder = "http://maps.example.com/maps/api/geocode/xml"
        #expect(own.geocodingURL("Boston", localAuthority: "") == "http://maps.example.com/maps/api/geocode/xml?sensor=false&address=Boston")
        let alone = try BackendTester(backends: [CommerceBackend(directory: CommerceTests.stubs.appendingPathComponent("commerce"))])
        let byCity = try StoreBrowser(alone).get(CommerceTests.view("mStoreLocatorSearchView", "zipOrCity=Boston"))
        #expect(Page.matches(#"physicalStoreId=\d+[^"]*">([^<]+)</a>"#, in: byCity.html) == ["Madisons Boston"])
        // A bad setting is reported with its field.
        try #"{"geocoder": "ftp://x"}"#.write(to: copy.appendingPathComponent("config.json"), atomically: true, encoding: .utf8)
        #expect(
            CommerceBackend.check(directory: copy).map(String.init(describing:)).contains {
                $0.hasSuffix("config.json: geocoder: expected an http(s) URL ending in /json or /xml")
            })
    }

    /// `mounts` in config.json keeps some of the storefront's paths; one not the storefront's is a
    /// problem `check` names, and the defaults serve.
}
