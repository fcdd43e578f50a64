import Foundation
import Testing
import UnderstudyTesting

@testable import Lotus

@Suite struct LotusUnitTests {
    @Test func rfc3339DatesParseAndFormat() async throws {
        let date = try #require(AtomDate("2010-10-08T09:05:07.250Z"))
        #expect(date.text == "2010-10-08T09:05:07.250Z")
        #expect(date.httpDate == "Fri, 08 Oct 2010 09:05:07 GMT")
        #expect(AtomDate("2010-10-08T11:05:07.25+02:00") == date)
        #expect(AtomDate("2010-10-08t09:05:07.250z") == date)
        #expect(AtomDate("2010-10-08T09:05:07Z")?.text == "2010-10-08T09:05:07.000Z")
        #expect(AtomDate(httpDate: "Fri, 08 Oct 2010 09:05:07 GMT")?.text == "2010-10-08T09:05:07.000Z")
        #expect(AtomDate("1969-12-31T23:59:59.000Z")?.text == "1969-12-31T23:59:59.000Z")
        for bad in ["2010-10-08", "2010-13-08T09:05:07Z", "2010-10-08T09:05:07", "2010-10-08T09:05:07.Z", "yesterday"] {
            #expect(AtomDate(bad) == nil, "\(bad)")
        }
    }

    /// `mounts` names the prefixes the components are also under; older config.json files say `prefixes`.
    @Test func theComponentsAreMountedUnderPrefixesByTheirNewOrOlderSettingName() async throws {
        for key in ["mounts", "prefixes"] {
            let root = try makeTemporaryDirectory(["config.json": #"{"\#(key)": ["/legacy/connections"]}"#])
            defer { try? FileManager.default.removeItem(at: root) }
            let mounts = LotusBackend(directory: root).mounts
            #expect(mounts.contains("/legacy/connections/news") && mounts.contains("/news"), "\(key): \(mounts)")
            #expect(!mounts.contains("/developerworks/mydeveloperworks/news"), "\(key)")
        }
    }

    @Test func profileWildcards() {
        #expect(Wildcard.matches("Nick Poore", "nick*"))
        #expect(Wildcard.matches("Hugo", "%ugo"))
        #expect(!Wildcard.matches("Hugo", "%go"))
        #expect(Wildcard.matches("Raleigh", "r*g*"))
        #expect(!Wildcard.matches("Raleigh", "Dublin"))
    }

    @Test func languagesInJavaAndDojoFormsAndFromAcceptLanguage() {
        #expect(LotusLabels(lang: "es_GT", acceptLanguage: nil).language == "es")
        #expect(LotusLabels(lang: "de-at", acceptLanguage: "fr").language == "de")
        #expect(LotusLabels(lang: nil, acceptLanguage: "ja, fr-CA;q=0.8").language == "fr")
        #expect(LotusLabels(lang: "xx", acceptLanguage: nil).language == "en")
    }

    @Test func fixtureProblemsSayWhereTheyAre() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lotus-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(
            #"{"people": [{"userid": "u1", "key": "k1", "name": "A", "email": "a@x", "password": "p", "network": ["u9"], "following": ["u1"]}]}"#.utf8
        )
        .write(to: directory.appendingPathComponent("people.json"))
        try Data(
            "{\"blogs\": [\n  {\"handle\": \"b\", \"id\": \"1\", \"title\": \"B\", \"owner\": \"u2\",\n   \"entries\": [{\"id\": \"e\", \"title\": \"T\", \"author\": \"u1\", \"published\": \"soon\"}]}]}"
                .utf8
        )
        .write(to: directory.appendingPathComponent("blogs.json"))
        try Data("{\"stories\": [\n{\"id\": 1}".utf8).write(to: directory.appendingPathComponent("activity.json"))
        let problems = LotusBackend.check(directory: directory).map(\.description)
        #expect(problems.contains { $0.hasSuffix("blogs.json: blogs[0].owner: no person with userid u2") })
        #expect(
            problems.contains { $0.hasSuffix("blogs.json: blogs[0].entries[0]: 'soon' is not an RFC 3339 date such as 2010-10-08T09:00:00.000Z") })
        #expect(problems.contains { $0.contains("activity.json:2:") })
        // The network and following lists name people of the file, not oneself.
        #expect(problems.contains { $0.hasSuffix("people.json: people[0].network[0]: no person with userid u9") })
        #expect(problems.contains { $0.hasSuffix("people.json: people[0].following[0]: a person cannot list themself") })
        #expect(problems.count == 5, "\(problems)")
        #expect(LotusBackend.check(directory: LotusTestServer.fixtures).isEmpty)
    }
}
