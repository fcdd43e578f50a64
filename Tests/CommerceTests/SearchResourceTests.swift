import Foundation
import MockCore
import Testing
import UnderstudyTesting

@testable import Commerce

/// The JSON search services a native search bar calls, read with JSONSerialization as an app
/// would, from the backend in memory (what a socket adds is the storefront pages' tests').
@Suite struct SearchResourceTests {
    static let root = "/search/resources/store/10152/"

    /// The storefront in memory.
    static func start() throws -> (BackendTester, CommerceBackend) {
        let commerce = CommerceBackend(directory: CommerceTests.stubs.appendingPathComponent("commerce"))
        return (try BackendTester(backends: [commerce]), commerce)
    }

    func json(_ server: BackendTester, _ path: String) async throws -> (status: Int, object: [String: Any], text: String) {
        let response = await server.send(path)
        let object = try JSONSerialization.jsonObject(with: Data(response.body.bytes)) as? [String: Any] ?? [:]
        return (response.status, object, String(decoding: response.body.bytes, as: UTF8.self))
    }

    @Test func productsBySearchTermWithPaging() async throws {
        let (server, _) = try Self.start()
        let (status, result, text) = try await json(server, Self.root + "productview/bySearchTerm/dress?pageSize=4&pageNumber=2&catalogId=10001")
        #expect(status == 200)
        #expect(result["recordSetTotal"] as? Int == 10 && result["recordSetCount"] as? Int == 4 && result["recordSetStartNumber"] as? Int == 4)
        #expect(result["recordSetComplete"] as? String == "false" && result["resourceName"] as? String == "productview")
        let first = try #require((result["catalogEntryView"] as? [[String: Any]])?.first)
        #expect(first["buyable"] as? String == "true" && first["storeID"] as? String == "10152")
        let offer = (first["price"] as? [[String: Any]])?.first { $0["usage"] as? String == "Offer" }
        #expect(offer?["value"] is String && offer?["currency"] as? String == "USD")
        // As the samples are written: tabs, and slashes escaped.
        #expect(text.hasPrefix("{\n\t\"catalogEntryView\": [\n\t\t{"))
        #expect(text.contains(#""thumbnail": "\/wcsstore\/Madisons\/images\/catalog\/"#))
    }

    /// Before feature pack 7 the same resources were served by the Commerce server under
    /// /wcs/resources; links in the answer stay under the path the client used.
    @Test func theOlderWcsResourcesPathServesTheSameResources() async throws {
        let (server, _) = try Self.start()
        let newer = try await json(server, Self.root + "productview/byId/12601")
        let older = try await json(server, "/wcs/resources/store/10152/productview/byId/12601")
        #expect(older.status == 200)
        #expect(older.text == newer.text.replacingOccurrences(of: #"\/search\/resources\/"#, with: #"\/wcs\/resources\/"#))
        #expect(try await json(server, "/wcs/resources/store/99/productview/byId/12601").status == 404)
    }

    @Test func productsByIdAndCategory() async throws {
        let (server, commerce) = try Self.start()
        let byId = try await json(server, Self.root + "productview/byId/12601")
        #expect((byId.object["catalogEntryView"] as? [[String: Any]])?.first?["name"] as? String == "Cast Iron Skillet")
        let byPart = try await json(server, Self.root + "productview/MAD-KIT-COOK-01")
        #expect((byPart.object["catalogEntryView"] as? [[String: Any]])?.first?["uniqueID"] as? String == "12601")
        let byCategory = try await json(server, Self.root + "productview/byCategory/10002")
        #expect(byCategory.object["recordSetTotal"] as? Int == CommerceTests.storefront(commerce).catalog.products(inCategory: "10002").count)
        let byDepartment = try await json(server, Self.root + "productview/byCategory/10001")
        #expect(byDepartment.object["recordSetTotal"] as? Int == 30)
    }

    @Test func categoriesFromTheTop() async throws {
        let (server, _) = try Self.start()
        let top = try await json(server, Self.root + "categoryview/@top")
        let groups = try #require(top.object["catalogGroupView"] as? [[String: Any]])
        #expect(groups.map { $0["identifier"] as? String } == ["Apparel", "Furniture", "Electronics", "Kitchen", "Grocery"])
        #expect(groups[0]["parentCatalogGroupID"] as? String == "-1")
        #expect((groups[0]["childCatalogGroupID"] as? [String])?.first == "10001_10002")
        let children = try await json(server, Self.root + "categoryview/byParentCategory/10001")
        #expect((children.object["catalogGroupView"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Dresses", "Shirts", "Shoes"])
        let french = try await json(server, Self.root + "categoryview/byId/10001?langId=-2")
        #expect((french.object["catalogGroupView"] as? [[String: Any]])?.first?["name"] as? String == "Vêtements")
    }

    @Test func errorsSayWhatWasWrong() async throws {
        let (server, _) = try Self.start()
        let wrongStore = try await json(server, "/search/resources/store/99/productview/bySearchTerm/dress")
        #expect(wrongStore.status == 404)
        #expect((wrongStore.object["errors"] as? [[String: Any]])?.first?["errorKey"] as? String == "_ERR_INVALID_STOREID")
        let wrongCatalog = try await json(server, Self.root + "productview/bySearchTerm/dress?catalogId=555")
        #expect(wrongCatalog.status == 400)
        let noProduct = try await json(server, Self.root + "productview/byId/1")
        #expect(noProduct.status == 404 && noProduct.text.contains("_ERR_PRODUCT_NOT_FOUND"))
    }
}
