import Foundation
import Testing
import UnderstudyTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One table lists the admin API: `understudy admin-routes`, a running server's
/// `GET /__admin/routes` and docs/admin-api.md's "Every route" hold the same routes, and every
/// route is served by something (none falls through to the 404 of requests nothing takes); a
/// method a path does not take is answered 405 with the table's `Allow`.
@Suite(.serialized) struct AdminRoutesTests {
    static let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/admin-api.md")

    @Test func theDocHoldsTheTableTheCommandPrints() throws {
        let run = try UnderstudyProcess(["admin-routes", "--markdown"])
        let printed = run.allOutput()
        #expect(run.finish().status == 0)
        let text = try String(contentsOf: Self.doc, encoding: .utf8)
        let start = try #require(text.range(of: "<!-- admin-routes: made by `understudy admin-routes --markdown` -->\n"))
        let end = try #require(text.range(of: "<!-- /admin-routes -->"))
        #expect(
            String(text[start.upperBound..<end.lowerBound]) == printed,
            "docs/admin-api.md's table differs from the routes: paste `understudy admin-routes --markdown` there")
        #expect(printed.split(separator: "\n").count > 50)
    }

    @Test func aRunningServerServesEveryRouteOfTheTable() async throws {
        let stubs = try makeTemporaryDirectory(["__files/probe.txt": "probe"])
        defer { try? FileManager.default.removeItem(at: stubs) }
        let server = try UnderstudyProcess([
            "serve", "--port", "0", "--threads", "2", "--no-watch", "--stubs", stubs.path,
            "--ca-dir", stubs.appendingPathComponent("ca").path,
        ])
        defer {
            server.signal(SIGTERM)
            _ = server.finish()
        }
        let port = try #require(Int(server.firstLine().split(separator: ":").last ?? ""))
        let session = NoRedirects.session()
        func call(_ method: String, _ path: String) async throws -> (Int, String) {
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
            request.httpMethod = method
            if ["POST", "PUT", "PATCH"].contains(method) {
                request.httpBody = Data("{}".utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (body, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
        }

        let (_, listed) = try await call("GET", "/__admin/routes")
        let routes = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])["routes"] as? [[String: Any]] ?? []
        let cli = try UnderstudyProcess(["admin-routes"])
        let cliLines = cli.allOutput().split(separator: "\n")
        #expect(cli.finish().status == 0)
        #expect(routes.count == cliLines.count, "the server mounts what the command lists")
        #expect(
            Set(routes.compactMap { $0["path"] as? String })
                == Set(cliLines.compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map(String.init) }))

        /// Whether `template` holds `path` as the table matches: `{x}` one segment, `{x...}` the rest.
        func holds(_ template: String, _ path: String) -> Bool {
            let want = template.split(separator: "/")
            let have = path.split(separator: "?")[0].split(separator: "/")
            for (index, part) in want.enumerated() {
                if part.hasSuffix("...}") { return have.count > index }
                guard index < have.count, part.hasPrefix("{") || part == have[index] else { return false }
            }
            return want.count == have.count
        }
        for route in routes {
            let path = try #require(route["path"] as? String)
            let methods = route["methods"] as? [String] ?? []
            let concrete =
                path.replacingOccurrences(of: "{id}", with: "1c0d2a4e-93b1-5f07-0000-000000000002")
                .replacingOccurrences(of: "{name}", with: "probe").replacingOccurrences(of: "{file...}", with: "index.html")
                .replacingOccurrences(of: "{name...}", with: "probe.txt") + (path.hasSuffix("/live") ? "?timeout=0" : "")
            for method in methods where path != "/__admin/shutdown" {  // last, below
                let (status, body) = try await call(method, concrete)
                #expect(!body.hasPrefix("No backend or stub answers"), "\(method) \(concrete): \(status) \(body.prefix(200))")
                #expect(status != 405, "\(method) \(concrete)")
            }
            // Every other method is 405 with the methods the path takes, unless another route holding the path takes it.
            let taken = Set(routes.filter { holds($0["path"] as? String ?? "", concrete) }.flatMap { $0["methods"] as? [String] ?? [] })
            for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
            where !taken.contains(method) && !(method == "HEAD" && taken.contains("GET")) {
                var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(concrete)")))
                request.httpMethod = method
                let (_, response) = try await session.data(for: request)
                let answer = try #require(response as? HTTPURLResponse)
                #expect(answer.statusCode == 405, "\(method) \(concrete)")
                let allowed = Set(
                    (answer.value(forHTTPHeaderField: "Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(allowed == taken.union(taken.contains("GET") ? ["HEAD"] : []), "\(method) \(concrete): Allow \(allowed)")
            }
        }
        let (status, _) = try await call("POST", "/__admin/shutdown")
        #expect(status == 200)
    }
}
