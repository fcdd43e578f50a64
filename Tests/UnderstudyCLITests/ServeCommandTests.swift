import Foundation
import MockCore
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.serialized) struct ServeCommandTests {
    @Test func versionFlagPrintsTheVersion() throws {
        let run = try UnderstudyProcess(["--version"])
        #expect(run.firstLine() == UnderstudyVersion.current)
        #expect(run.finish().status == 0)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func servesOnAFreePortAndStopsCleanlyOnSignal(signal: Int32) async throws {
        let stubs = try makeTemporaryDirectory(["__files/hello.txt": "hello from a fixture"])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let portFile = stubs.appendingPathComponent("port")
        let run = try UnderstudyProcess(["serve", "--port", "0", "--port-file", portFile.path, "--stubs", stubs.path, "--threads", "2"])

        let line = run.firstLine()
        #expect(line.hasPrefix("listening on http://127.0.0.1:"))
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        #expect(try String(contentsOf: portFile, encoding: .utf8) == "\(port)\n")

        let session = URLSession(configuration: .ephemeral)
        let (body, response) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/hello.txt")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "hello from a fixture")
        let (_, health) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/__admin/health")!)
        #expect((health as? HTTPURLResponse)?.statusCode == 200)
        session.invalidateAndCancel()

        run.signal(signal)
        let (status, errors) = run.finish()
        #expect(status == 0)
        #expect(errors.contains("stopping"))
        #expect(errors.contains("stopped"))
    }

    /// Beyond loopback the admin API always has a token: made up and printed when none is given.
    @Test func bindingBeyondLoopbackGuardsTheAdminAPIWithAToken() async throws {
        let stubs = try makeTemporaryDirectory(["__files/hello.txt": "hello"])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let run = try UnderstudyProcess(["serve", "--port", "0", "--bind", "0.0.0.0", "--stubs", stubs.path, "--threads", "1"])
        let warning = run.errorLine(containing: "Authorization: Bearer ")
        let token = try #require(warning.split(separator: "Bearer ").last?.split(separator: "'").first.map(String.init))
        #expect(token.count == 32)
        let port = try #require(Int(run.firstLine().split(separator: ":").last ?? ""))
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        func reset(_ authorization: String?) async throws -> Int? {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/__admin/reset")!)
            request.httpMethod = "POST"
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
            return (try await session.data(for: request).1 as? HTTPURLResponse)?.statusCode
        }
        #expect(try await reset(nil) == 401)
        #expect(try await reset("Bearer \(token)") == 200)
        #expect((try await session.data(from: URL(string: "http://127.0.0.1:\(port)/__admin/health")!).1 as? HTTPURLResponse)?.statusCode == 200)
        #expect((try await session.data(from: URL(string: "http://127.0.0.1:\(port)/hello.txt")!).1 as? HTTPURLResponse)?.statusCode == 200)
        run.signal(SIGTERM)
        #expect(run.finish().status == 0)
    }

    @Test func shutdownThroughTheAdminAPIAndHotReloadOfStubFiles() async throws {
        let stubs = try makeTemporaryDirectory(["mappings/a.json": #"{"request": {"url": "/a"}, "response": {"body": "first"}}"#])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let run = try UnderstudyProcess(["serve", "--port", "0", "--stubs", stubs.path, "--threads", "1"])
        let port = try #require(Int(run.firstLine().split(separator: ":").last ?? ""))
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(port)/a")!
        #expect(String(decoding: try await session.data(from: url).0, as: UTF8.self) == "first")

        try Data(#"{"request": {"url": "/a"}, "response": {"body": "second"}}"#.utf8).write(to: stubs.appendingPathComponent("mappings/a.json"))
        var served = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while served != "second", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            served = String(decoding: try await session.data(from: url).0, as: UTF8.self)
        }
        #expect(served == "second", "a changed file is served without a restart")

        // Static files under __files/ too.
        try FileManager.default.createDirectory(at: stubs.appendingPathComponent("__files"), withIntermediateDirectories: true)
        try Data("new static file".utf8).write(to: stubs.appendingPathComponent("__files/new.txt"))
        let staticURL = URL(string: "http://127.0.0.1:\(port)/new.txt")!
        var staticBody = ""
        while staticBody != "new static file", ContinuousClock.now < deadline + .seconds(10) {
            try await Task.sleep(for: .milliseconds(50))
            staticBody = String(decoding: try await session.data(from: staticURL).0, as: UTF8.self)
        }
        #expect(staticBody == "new static file")

        var shutdown = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/__admin/shutdown")!)
        shutdown.httpMethod = "POST"
        #expect((try await session.data(for: shutdown).1 as? HTTPURLResponse)?.statusCode == 200)
        let (status, errors) = run.finish()
        #expect(status == 0)
        #expect(errors.contains("shutdown requested through POST /__admin/shutdown"))
        #expect(errors.contains("stub files changed"))
    }

    @Test func checkReportsEachProblemWithFileAndLineAndFailsOnAny() throws {
        let stubs = try makeTemporaryDirectory([
            "mappings/good.json": #"{"request": {"url": "/a"}, "response": {"body": "a"}}"#,
            "mappings/bad.json": "{\n  \"request\": {\"url\": \"/b\"},\n  \"response\": {\"fault\": \"BOOM\"}\n}\n",
            "pack/mappings/npi.json": #"{"request": {"url": "/x"}, "response": {"bodyFileName": "npi/x/config.json"}}"#,
            "pack/__files/npi/x/config.json": "{\n  \"ViewControllerClassName\": \"X\",\n  \"retries\": 3\n}\n",
            "recorded/staging/mappings/get-x.json": #"{"request": {"url": "/x"}, "response": {"bodyFileName": "gone.json"}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let failing = try UnderstudyProcess(["check", "--stubs", stubs.path])
        let summary = failing.firstLine()
        let (status, errors) = failing.finish()
        #expect(status == 1)
        // A missing body file loads (WireMock answers 500 for it): a warning, not a failure.
        #expect(summary == "4 mapping files, 3 mappings, 2 problem(s), 1 warning(s)")
        #expect(errors.contains("mappings/bad.json:3: response.fault: expected one of EMPTY_RESPONSE"))
        #expect(errors.contains("recorded/staging/mappings/get-x.json:1: response.bodyFileName: no file 'gone.json'"), "recordings are checked too")
        #expect(errors.contains("npi/x/config.json:3: retries: NPI configuration values must be strings"))

        try FileManager.default.removeItem(at: stubs.appendingPathComponent("mappings/bad.json"))
        try FileManager.default.removeItem(at: stubs.appendingPathComponent("recorded"))
        try Data("{\"ViewControllerClassName\": \"X\", \"retries\": \"3\"}".utf8).write(
            to: stubs.appendingPathComponent("pack/__files/npi/x/config.json"))
        let passing = try UnderstudyProcess(["check", "--stubs", stubs.path])
        #expect(passing.firstLine() == "2 mapping files, 2 mappings, 0 problem(s)")
        #expect(passing.finish().status == 0)
    }

    @Test func checkReportsGeocoderDataProblems() throws {
        let stubs = try makeTemporaryDirectory([
            "geocoder/us-zipcodes.csv": "zip,lat,lng,city,state,county,radius_m\n94086,37.37,-122.02,Sunnyvale,CA,,700\n1234,1,2,X,CA,,500\n",
            "geocoder/places.json": #"{"places": [{"address": "x", "lat": 1}]}"#,
            "geocoder/config.json": #"{"keys": "sometimes"}"#,
            "geocoder/regions.csv":
                "country,code,admin1_code,name,other_name,lat,lng,sw_lat,sw_lng,ne_lat,ne_lng\nCA,ON,08,Ontario,,47.5,-84.8,42,-95,53,-74.6\n",
            "geocoder/ca-postalcodes.csv":
                "code,lat,lng,city,province,radius_m\nL6G,43.8485,-79.3346,Markham,ON,500\nL6G1C7,43.8,-79.3,Markham,ON,30\n",
        ])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let failing = try UnderstudyProcess(["check", "--stubs", stubs.path])
        let summary = failing.firstLine()
        let (status, errors) = failing.finish()
        #expect(status == 1)
        #expect(summary == "0 mapping files, 0 mappings, 4 problem(s)")
        #expect(errors.contains("geocoder/us-zipcodes.csv:3: zip '1234' is not 5 digits"))
        #expect(errors.contains("geocoder/ca-postalcodes.csv:3: code 'L6G1C7' is not a Canadian postal code"))
        #expect(errors.contains("geocoder/places.json: places[0].lng: must be a longitude"))
        #expect(errors.contains("geocoder/config.json: keys: must be"))
    }

    @Test func checkReportsInformixFixtureProblemsWithTheirLine() throws {
        let stubs = try makeTemporaryDirectory([
            "informix/stores_demo.sql":
                "create table t (a integer primary key);\ninsert into t values (1);\n\ninsert into t values ('x');\nselec 1;\n",
            "informix/config.json": #"{"php": "4"}"#,
        ])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let failing = try UnderstudyProcess(["check", "--stubs", stubs.path])
        let summary = failing.firstLine()
        let (status, errors) = failing.finish()
        #expect(status == 1)
        #expect(summary == "0 mapping files, 0 mappings, 3 problem(s)")
        #expect(errors.contains("informix/config.json: php: must be \"5.3\", \"7\" or \"8\""))
        #expect(errors.contains("informix/stores_demo.sql:4: SQLSTATE[22018]: Invalid character value for cast specification: -1213"))
        #expect(errors.contains("informix/stores_demo.sql:5: SQLSTATE[42000]: Syntax error or access violation: -201"))
    }

    @Test func checkReportsCommerceFixtureProblems() throws {
        let stubs = try makeTemporaryDirectory([
            "commerce/catalog.json": #"{"store": {"storeId": "1"}, "departments": [], "products": []}"#,
            "commerce/stores.json": #"{"stores": [{"id": "1"}]}"#,
            "commerce/shoppers.json": "{\"shoppers\": [\n",
            "commerce/config.json": #"{"responseCache": -1}"#,
            "commerce/templates/StoreView.html": "<h1>{{#if title}}</h1>\n",
        ])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let failing = try UnderstudyProcess(["check", "--stubs", stubs.path])
        let summary = failing.firstLine()
        let (status, errors) = failing.finish()
        #expect(status == 1)
        #expect(summary == "0 mapping files, 0 mappings, 5 problem(s)")
        #expect(errors.contains("commerce/config.json: responseCache: must be a whole number ≥ 0"))
        #expect(errors.contains("commerce/catalog.json: store.catalogId: missing"))
        #expect(errors.contains("commerce/stores.json: stores[0].name: missing"))
        #expect(errors.contains("commerce/shoppers.json:2:"))
        #expect(errors.contains("commerce/templates/StoreView.html:1: column"))
    }

    @Test func sigtermLetsAResponseInFlightFinish() throws {
        // A large file read slowly: its response is still being written when SIGTERM arrives.
        let size = 8 * 1024 * 1024
        let stubs = try makeTemporaryDirectory(["__files/big.bin": String(repeating: "u", count: size)])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let run = try UnderstudyProcess(["serve", "--port", "0", "--stubs", stubs.path, "--threads", "1"])
        let port = try #require(Int(run.firstLine().split(separator: ":").last ?? ""))

        let connection = try RawHTTPConnection(host: "127.0.0.1", port: port, receiveBuffer: 16 * 1024)
        try connection.send("GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(!connection.pendingBytes(waiting: 2).isEmpty)
        run.signal(SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.body.count == size)
        #expect(run.finish().status == 0)
    }

    @Test func invalidOptionsAreRejectedWithAReason() throws {
        let run = try UnderstudyProcess(["serve", "--port", "70000"])
        let (status, errors) = run.finish()
        #expect(status != 0)
        #expect(errors.contains("--port must be 0...65535"))
        for (arguments, reason) in [
            (["--wiremock-version", "4"], "--wiremock-version must be 2 or 3, not 4"),
            (["--peers-dns", "understudy-peers"], "--peers-dns understudy-peers: expected NAME:PORT"),
            (["--port", "0", "--peer", "http://a:1"], "--peer and --peers-dns need a fixed --port"),
        ] {
            let refused = try UnderstudyProcess(["serve"] + arguments)
            let (status, errors) = refused.finish()
            #expect(status != 0 && errors.contains(reason), "\(arguments): \(errors)")
        }
    }

    /// `wiremockVersion` in the stubs folder's understudy.json chooses as --wiremock-version does;
    /// a bad value stops the start with the file and field named.
    @Test func theStubsFolderChoosesTheWireMockVersion() async throws {
        let mapping = #"{"request": {"urlPath": "/hi"}, "response": {"body": "{{request.query.who}}", "transformers": ["response-template"]}}"#
        for (settings, expected) in [(#"{"wiremockVersion": 2}"#, "&lt;b&gt;"), ("{}", "<b>")] {
            let stubs = try makeTemporaryDirectory(["mappings/hi.json": mapping, "understudy.json": settings])
            defer { try? FileManager.default.removeItem(at: stubs) }
            let server = try UnderstudyProcess(["serve", "--port", "0", "--no-watch", "--stubs", stubs.path])
            defer {
                server.signal(SIGTERM)
                _ = server.finish()
            }
            let port = try #require(Int(server.firstLine().split(separator: ":").last ?? ""))
            let (body, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/hi?who=%3Cb%3E")))
            #expect(String(decoding: body, as: UTF8.self) == expected, "\(settings)")
        }
        let bad = try makeTemporaryDirectory(["understudy.json": #"{"wiremockVersion": "three"}"#])
        defer { try? FileManager.default.removeItem(at: bad) }
        let refused = try UnderstudyProcess(["serve", "--port", "0", "--stubs", bad.path])
        let (status, errors) = refused.finish()
        #expect(status != 0 && errors.contains("understudy.json") && errors.contains("wiremockVersion: expected 2 or 3"), "\(errors)")
    }

    @Test func aPortInUseIsAClearErrorNotASharedPort() throws {
        let first = try UnderstudyProcess(["serve", "--port", "0", "--stubs", "/nonexistent"])
        let port = try #require(Int(first.firstLine().split(separator: ":").last ?? ""))
        defer {
            first.signal(SIGTERM)
            _ = first.finish()
        }
        let second = try UnderstudyProcess(["serve", "--port", "\(port)", "--stubs", "/nonexistent"])
        let (status, errors) = second.finish()
        #expect(status != 0)
        #expect(errors.contains("cannot listen on 127.0.0.1 port \(port)"))
    }
}
