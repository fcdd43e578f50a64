import Foundation
import Testing
import UnderstudyTesting

/// Mutation fuzzing over the socket: real requests to every emulator, the stub engine and its
/// admin API, mutated byte by byte (deterministically, so a failure replays), against the served
/// fixtures. Whatever comes back, the process must stay up and keep answering. Bounded:
/// `UNDERSTUDY_FUZZ_REQUESTS` requests (default 1,200) from `UNDERSTUDY_FUZZ_SEED` (a number).
@Suite struct SocketMutationFuzzTests {
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../stubs").standardizedFileURL

    /// Valid requests, one or more per backend: (head without Content-Length, body).
    static let seeds: [(head: String, body: String)] = {
        let atom =
            "<entry xmlns=\"http://www.w3.org/2005/Atom\"><category scheme=\"http://www.ibm.com/xmlns/prod/sn/type\" term=\"entry\"/>"
            + "<content type=\"text\">Fuzzing &amp; testing</content></entry>"
        let basic = "Basic " + Data("npoore@renovations.example.com:passw0rd".utf8).base64EncodedString()
        let servlet = "/webapp/wcs/stores/servlet/"
        return [
            ("GET /maps/api/geocode/json?address=1600+Amphitheatre+Pkwy,+Mountain+View,+CA&sensor=false HTTP/1.1\r\nHost: h\r\n", ""),
            ("GET /maps/api/geocode/xml?latlng=40.714224,-73.961452&components=country:US HTTP/1.1\r\nHost: h\r\n", ""),
            (
                "POST /informix/generic.php HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\n",
                "sql_stmt=SELECT+*+FROM+customer+WHERE+lname+MATCHES+'S*'+ORDER+BY+customer_num&tableName=customer"
            ),
            (
                "POST /custdemoapp/service.php HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\n",
                "sql_stmt=INSERT+INTO+customer+(fname,lname)+VALUES+('A','B')&tableName=customer"
            ),
            ("GET /news/atom/stories/public?ps=5&source=profiles&since=2010-01-01T00:00:00Z HTTP/1.1\r\nHost: h\r\n", ""),
            (
                "PUT /profiles/atom/mv/theboard/entry/status.do?email=npoore@renovations.example.com HTTP/1.1\r\nHost: h\r\n"
                    + "Authorization: \(basic)\r\nContent-Type: application/atom+xml\r\n", atom
            ),
            ("GET /blogs/roller-ui/rendering/feed/home/entries/atom?tags=lotus HTTP/1.1\r\nHost: h\r\n", ""),
            (
                "GET \(servlet)mProductDisplayView?storeId=10152&catalogId=10051&langId=-1&productId=12001 HTTP/1.1\r\nHost: h\r\n"
                    + "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 5_0 like Mac OS X)\r\nCookie: WC_ACTIVEPOINTER=-1%2C10152\r\n", ""
            ),
            (
                "POST \(servlet)OrderItemAdd HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\n",
                "storeId=10152&catalogId=10051&langId=-1&catEntryId=12002&quantity=2&URL=mOrderItemDisplay"
            ),
            ("GET /search/resources/store/10152/productview/bySearchTerm/dress?catalogId=10051&pageSize=5 HTTP/1.1\r\nHost: h\r\n", ""),
            (
                "POST /__admin/mappings HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
                #"{"request": {"method": "POST", "urlPathPattern": "/fz/[a-z]+", "bodyPatterns": [{"matchesXPath": "/a[@b='1']"}, {"matchesJsonPath": "$.x"}]}, "#
                    + #""response": {"status": 201, "body": "{{xPath request.body '/a/@b'}} {{jsonPath request.body '$.x'}}", "transformers": ["response-template"]}}"#
            ),
            ("POST /fz/abc HTTP/1.1\r\nHost: h\r\nContent-Type: application/xml\r\n", "<a b='1'><c>&amp;</c></a>"),
            (
                "POST /__admin/requests/count HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
                #"{"method": "ANY", "urlPattern": "/fz/.*", "bodyPatterns": [{"equalToJson": {"x": [1, 2]}, "ignoreArrayOrder": true}]}"#
            ),
        ]
    }()

    /// SplitMix64: the same requests on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let interesting: [[UInt8]] = [
        "\u{FF}", "%", "%zz", "<", "</", "&", "&#0;", "{", "[", "'", "\"", "\\", "*", "\r\n", "\0",
        String(repeating: "9", count: 30), "-1", "<!DOCTYPE a [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>",
        "$..*", "{{", "}}", "((((((((", "\u{1F600}",
    ].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], _ random: inout Generator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !bytes.isEmpty: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 1 where !bytes.isEmpty: bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 2 where !bytes.isEmpty: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...16, using: &random)))
            case 3: bytes.insert(contentsOf: interesting.randomElement(using: &random) ?? [], at: at)
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, at + Int.random(in: 1...64, using: &random))
                bytes.insert(contentsOf: Array(repeating: bytes[at..<end], count: Int.random(in: 2...64, using: &random)).flatMap { $0 }, at: at)
            default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
            }
        }
        return bytes
    }

    @Test func mutatedRequestsNeverTakeTheServerDown() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-stubs-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.stubs, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let portFile = copy.appendingPathComponent("port")
        let run = try UnderstudyProcess(["serve", "--port", "0", "--port-file", portFile.path, "--stubs", copy.path, "--threads", "2", "--no-watch"])
        let port = try #require(Int(run.firstLine().split(separator: ":").last ?? ""))
        func ask(_ bytes: [UInt8], timeout: TimeInterval = 3) -> Int? {
            guard let connection = try? RawHTTPConnection(host: "127.0.0.1", port: port, timeout: timeout),
                (try? connection.send(bytes)) != nil
            else { return nil }
            connection.finishSending()
            return try? connection.readResponse().status
        }
        let health = Array("GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        for _ in 0..<300 where ask(health) != 200 { Thread.sleep(forTimeInterval: 0.1) }
        #expect(ask(health) == 200)

        let count = ProcessInfo.processInfo.environment["UNDERSTUDY_FUZZ_REQUESTS"].flatMap(Int.init) ?? 1_200
        var random = Generator(state: ProcessInfo.processInfo.environment["UNDERSTUDY_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED)
        var statuses: [Int: Int] = [:]
        for index in 0..<count {
            let seed = Self.seeds[index % Self.seeds.count]
            let request: [UInt8]
            if Bool.random(using: &random) {
                // Keep the framing, mutate the target and body: reaches the parsers behind it.
                let body = Self.mutate(Array(seed.body.utf8), &random)
                var head = Array(seed.head.utf8)
                if let space = head.firstIndex(of: 0x20), let end = head[(space + 1)...].firstIndex(of: 0x20) {
                    let target = Self.mutate(Array(head[(space + 1)..<end]), &random).filter { $0 != 0x20 && $0 != 0x0D && $0 != 0x0A }
                    head.replaceSubrange((space + 1)..<end, with: target)
                }
                request = head + Array("Connection: close\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
            } else {
                let whole = seed.head + "Connection: close\r\nContent-Length: \(seed.body.utf8.count)\r\n\r\n" + seed.body
                request = Self.mutate(Array(whole.utf8), &random)
            }
            statuses[ask(request) ?? 0, default: 0] += 1
            if index % 100 == 99 {
                #expect(ask(health) == 200, "the server stopped answering after request \(index)")
                #expect(run.process.isRunning, "the server died after request \(index)")
                if !run.process.isRunning { break }
            }
        }
        #expect(run.process.isRunning)
        #expect(ask(health) == 200)
        #expect(statuses.keys.contains { (200..<300).contains($0) }, "some mutated requests still reach a backend: \(statuses)")
        print("socket mutation fuzz: \(count) requests, statuses \(statuses.sorted { $0.key < $1.key })")
        run.signal(SIGTERM)
        let (status, errors) = run.finish()
        #expect(status == 0, "\(errors.suffix(2_000))")
    }
}
