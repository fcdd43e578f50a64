import Foundation
import Testing
import UnderstudyClient
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A team server's lost scope through the client: two replicas, peers of each other; the one a
/// scope lives on is killed; the client, on the other, gets `scopeLost` naming both.
@Suite struct TeamServerClientTests {
    /// A port nothing listens on now (the kernel's pick, released).
    static func freePort() throws -> Int {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Two replicas, each the other's peer, healthy. Their ports are picked before they start (each
    /// names the other), so another test may take one meanwhile: then they start again on others.
    static func startPeers(stubs: URL) async throws -> ([UnderstudyProcess], [Int]) {
        for _ in 0..<5 {
            let ports = [try freePort(), try freePort()]
            let replicas = try ports.map { port in
                try UnderstudyProcess([
                    "serve", "--port", String(port), "--threads", "1", "--no-watch", "--stubs", stubs.path,
                    "--peer", "http://127.0.0.1:\(ports.first { $0 != port } ?? 0)",
                ])
            }
            var healthy = true
            for port in ports where healthy {
                do {
                    try await Understudy("http://127.0.0.1:\(port)").waitUntilHealthy(timeout: .seconds(10))
                } catch {
                    healthy = false
                }
            }
            if healthy { return (replicas, ports) }
            for replica in replicas {
                replica.signal(SIGKILL)
                _ = replica.finish()
            }
        }
        throw UnderstudyError.unreachable(url: "two replicas", reason: "did not start on five pairs of ports")
    }

    @Test func aScopeWhoseReplicaIsGoneIsReportedLost() async throws {
        let stubs = try makeTemporaryDirectory(["mappings/ping.json": #"{"request": {"urlPath": "/ping"}, "response": {"body": "pong"}}"#])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let (replicas, ports) = try await Self.startPeers(stubs: stubs)
        defer {
            for replica in replicas {
                replica.signal(SIGKILL)
                _ = replica.finish()
            }
        }
        let servers = try ports.map { try Understudy("http://127.0.0.1:\($0)") }
        // The scope is made on the first replica, which tells the second where it lives.
        let scope = try servers[0].scope("ci-lost")
        _ = try await scope.stub(.get("/mine").willReturn(.text("mine")))
        // The second has heard where it lives (announced at once; within 2 s as a rule).
        let directory = try #require(URL(string: "http://127.0.0.1:\(ports[1])/__admin/fleet/scopes"))
        var heard = false
        for _ in 0..<100 where !heard {
            let (data, _) = try await URLSession(configuration: .ephemeral).data(from: directory)
            heard = String(decoding: data, as: UTF8.self).contains("ci-lost")
            if !heard { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(heard)
        replicas[0].signal(SIGKILL)
        _ = replicas[0].finish()
        let elsewhere = try servers[1].scope("ci-lost")
        await #expect(throws: UnderstudyError.scopeLost(scope: "ci-lost", replica: "http://127.0.0.1:\(ports[0])")) {
            _ = try await elsewhere.requests()
        }
        // Its reset starts it afresh on this replica.
        try await elsewhere.reset()
        #expect(try await elsewhere.requests().isEmpty)
    }
}
