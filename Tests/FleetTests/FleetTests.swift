import HTTPServer
import JSON
import MockCore
import Testing

@testable import Fleet

/// A team server's replicas: who the peers are, and how their journal answers are put together.
@Suite struct FleetTests {
    @Test func aReplicaLeavesItselfOutOfThePeersAllReplicasShare() {
        let all = ["http://understudy-0.understudy-peers:8080", "http://understudy-1.understudy-peers:8080", "http://127.0.0.1:9000"]
        #expect(FleetPeers.others(all, thisHost: "understudy-0") == Array(all.dropFirst()), "by the first label of its peer name")
        #expect(FleetPeers.others(all, thisHost: "UNDERSTUDY-1.understudy-peers") == [all[0], all[2]], "or by the whole name")
        #expect(FleetPeers.others(all, thisHost: "ci-runner") == all)
    }

    @Test func peersDNSIsANameAndAPortAndLeavesThisReplicasAddressesOut() throws {
        for bad in ["understudy-peers", ":8080", "peers:0", "peers:65536", "peers:http"] {
            #expect(PeerDNS.parse(bad, ownHosts: []) == nil, "\(bad)")
        }
        let dns = try #require(PeerDNS.parse("understudy-peers:8080", ownHosts: ["10.0.0.7", "127.0.0.1"]))
        #expect(dns.name == "understudy-peers" && dns.port == 8080)
        #expect(dns.peers(from: ["10.0.0.5", "10.0.0.7", "fd00::6"]) == ["http://10.0.0.5:8080", "http://[fd00::6]:8080"])
    }

    @Test func peersAreTheGivenOnesOnly() {
        let fleet = FleetPeers(given: ["http://a:1/", "http://b:2"], selfURL: "http://me:3", token: nil)
        #expect(fleet.peers == ["http://a:1", "http://b:2"])
        #expect(fleet.discovery.resolvedAt == nil)
    }

    /// `GET /__admin/requests?scope=*` over three replicas: newest first across them, each entry
    /// marked with its replica, the total summed, `limit` applied to the whole.
    @Test func theJournalsOfEveryReplicaMakeOneNewestFirst() throws {
        func event(_ url: String, _ date: Int) -> JSONValue {
            .object([("id", .string(url)), ("request", .object([("url", .string(url)), ("loggedDate", .int(date))]))])
        }
        func answer(_ events: [JSONValue], total: Int) -> JSONValue {
            .object([("requests", .array(events)), ("meta", .object([("total", .int(total))])), ("requestJournalDisabled", false)])
        }
        let parts: [(node: String, body: JSONValue)] = [
            ("http://a", answer([event("/a2", 30), event("/a1", 10)], total: 2)),
            ("http://b", answer([event("/b1", 20)], total: 5)),
            ("http://c", answer([], total: 0)),
        ]
        let merged = FleetPeers.merged(parts, newestFirst: true, limit: 2)
        let requests = merged["requests"]?.arrayValue ?? []
        #expect(requests.map { $0["request"]?["url"]?.stringValue } == ["/a2", "/b1"])
        #expect(requests.map { $0["node"]?.stringValue } == ["http://a", "http://b"])
        #expect(merged["meta"]?["total"]?.intValue == 7)
        #expect(merged["requestJournalDisabled"]?.boolValue == false, "the other fields as the first replica's")
        #expect(merged.objectValue?.map(\.0) == ["requests", "meta", "requestJournalDisabled"], "in WireMock's order")
    }

    @Test func countsAreSummedAndFoundRequestsComeOldestFirst() throws {
        let counts = FleetPeers.merged(
            [("http://a", .object([("count", .int(3))])), ("http://b", .object([("count", .int(4))]))],
            newestFirst: false, limit: nil)
        #expect(counts["count"]?.intValue == 7)
        func found(_ dates: [Int]) -> JSONValue {
            .object([("requests", .array(dates.map { .object([("loggedDate", .int($0))]) }))])
        }
        let merged = FleetPeers.merged([("http://a", found([1, 5])), ("http://b", found([3]))], newestFirst: false, limit: nil)
        #expect(merged["requests"]?.arrayValue?.map { $0["loggedDate"]?.intValue } == [1, 3, 5])
        #expect(merged["requests"]?.arrayValue?.map { $0["node"]?.stringValue } == ["http://a", "http://b", "http://a"])
    }

    @Test func residentMemoryIsRead() throws {
        let bytes = try #require(ProcessMemory.residentBytes())
        #expect(bytes > 1_000_000 && bytes < 1 << 40)
    }

    @Test func theScopeDirectoryKeepsNewerWordAndWhatItKnows() {
        let directory = ScopeDirectory()
        directory.set("ci-1", livesOn: "http://a:8080")
        // An old replica's word that it dropped the scope does not undo the newer owner's.
        directory.drop("ci-1", ifOwnedBy: "http://b:8080")
        #expect(directory.owner(of: "ci-1") == "http://a:8080")
        directory.drop("ci-1", ifOwnedBy: "http://a:8080")
        #expect(directory.owner(of: "ci-1") == nil)
        // A joining replica takes a peer's entries, keeping those it knows.
        directory.set("ci-2", livesOn: "http://c:8080")
        directory.adopt(.object([("ci-2", "http://a:8080"), ("ci-3", "http://b:8080")]))
        #expect(directory.entries == ["ci-2": "http://c:8080", "ci-3": "http://b:8080"])
    }

    @Test func adminRoutesOfAScopeNameItAndSayWhetherTheyStartItAfresh() {
        func route(_ method: HTTPMethod, _ path: String) -> String? {
            ScopeRoute(Request(method: method, target: path)).map { "\($0.name) \($0.startsAfresh ? "afresh" : "as it is")" }
        }
        #expect(route(.post, "/__admin/scopes/ci-7/reset") == "ci-7 afresh")
        #expect(route(.delete, "/__admin/scopes/ci-7") == "ci-7 afresh")
        #expect(route(.put, "/__admin/scopes/ci-7") == "ci-7 afresh")
        #expect(route(.get, "/__admin/scopes/ci-7") == "ci-7 as it is")
        #expect(route(.put, "/__admin/scopes/ci-7/network") == "ci-7 as it is")
        #expect(route(.get, "/__admin/scopes") == nil)
        #expect(route(.post, "/__admin/scopes/default/reset") == nil)
    }

    @Test func aLostScopeIsA410NamingItsReplicaAndTheWayBack() throws {
        let answer = ScopeDirectory.lost("ci-9", on: "http://10.0.0.3:8080", because: "does not answer")
        #expect(answer.status == 410)
        #expect(answer.headers["X-Understudy-Scope-Lost"] == "ci-9")
        let body = try JSONValue.parse(answer.body.bytes)
        #expect(body["lostReplica"] == "http://10.0.0.3:8080" && body["scope"] == "ci-9")
        #expect(body["message"]?.stringValue?.contains("POST /__admin/scopes/ci-9/reset") == true)
    }
}
