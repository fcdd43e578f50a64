import Foundation
import Stubs
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Seed 002: a MobileSmith native plug-in reads its configuration and talks to its backend.
@Suite struct MobileSmithTests {
    /// As a plug-in receives it: a string-to-string dictionary (decoding fails on any other value).
    func configuration(_ server: TestServer, _ name: String) async throws -> [String: String] {
        let (body, response) = try await server.send("GET", "/npi/\(name)/config.json")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
        return try JSONDecoder().decode([String: String].self, from: body)
    }

    @Test func pluginConfigurationsAreFlatStringDictionaries() async throws {
        let server = try serveShippedStubs()
        defer { server.stop() }
        let rally = try await configuration(server, "rally")
        // An Objective-C class (plug-ins are static libraries, which Swift could not be built
        // into), so NSClassFromString finds it by this name; and the seed's own company_name.
        #expect(rally["ViewControllerClassName"] == "RCLoginViewController")
        #expect(rally["company_name"] == "MobileSmith")
        #expect(rally["FragmentClassName"] == "com.mobilesmith.rallyconnector.ui.LoginFragment")
        #expect(rally["iOSNavPreference"] == "never")
        #expect(rally["page_size"] == "20")
        #expect(rally["rally_url"] == server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/rally")
        let feedback = try await configuration(server, "feedback")
        #expect(feedback["ViewControllerClassName"] == "XYZFeedbackViewController")
        #expect(try await server.send("GET", "/npi/unknown/config.json").response.statusCode == 404)
    }

    @Test func theRallyPluginLogsInAndQueriesThroughItsConfiguredURL() async throws {
        let server = try serveShippedStubs()
        defer { server.stop() }
        let rallyURL = try #require(try await configuration(server, "rally")["rally_url"])
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        func get(_ path: String, user: String, password: String) async throws -> (Data, HTTPURLResponse) {
            var request = URLRequest(url: URL(string: rallyURL + path)!)
            request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
            let (data, response) = try await session.data(for: request)
            return (data, try #require(response as? HTTPURLResponse))
        }
        let (token, ok) = try await get("/slm/webservice/v2.0/security/authorize", user: "tester@example.com", password: "rally-secret")
        #expect(ok.statusCode == 200)
        let result = try #require((try JSONSerialization.jsonObject(with: token) as? [String: Any])?["OperationResult"] as? [String: Any])
        #expect(result["SecurityToken"] as? String == "stub-security-token-0001")
        #expect(try await get("/slm/webservice/v2.0/security/authorize", user: "tester@example.com", password: "wrong").1.statusCode == 401)

        let (defects, _) = try await get("/slm/webservice/v2.0/defect", user: "tester@example.com", password: "rally-secret")
        let query = try #require((try JSONSerialization.jsonObject(with: defects) as? [String: Any])?["QueryResult"] as? [String: Any])
        let results = try #require(query["Results"] as? [[String: Any]])
        #expect(query["TotalResultCount"] as? Int == results.count && results.count == 2)
        #expect((results[0]["_ref"] as? String)?.hasPrefix(rallyURL + "/slm/webservice/v2.0/defect/") == true)
    }

    @Test func theShippedStubsPassTheCheck() {
        let report = StubCheck.run(stubsDirectory: shippedStubs)
        #expect(report.problems.map(\.description) == [])
        #expect(report.mappings >= 12)
    }
}
