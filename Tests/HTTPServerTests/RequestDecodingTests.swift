import Testing

@testable import HTTPServer

@Suite struct RequestDecodingTests {
    @Test func pathAndQueryAreSplitAndDecoded() {
        let request = Request(method: .get, target: "/maps/api/geocode/xml?address=94086&sensor=true")
        #expect(request.path == "/maps/api/geocode/xml")
        #expect(request.rawQuery == "address=94086&sensor=true")
        #expect(request.queryItems == [QueryItem(name: "address", value: "94086"), QueryItem(name: "sensor", value: "true")])
    }

    @Test func queryKeepsOrderRepeatsAndDecodesPlusAndPercent() {
        let request = Request(method: .get, target: "/q?b=2&a=1&b=3&name=San+Jos%C3%A9&flag&empty=&&x%3Dy=%zz")
        #expect(request.queryItems.map(\.name) == ["b", "a", "b", "name", "flag", "empty", "x=y"])
        #expect(request.queryItems.filter { $0.name == "b" }.map(\.value) == ["2", "3"])
        #expect(request.query("name") == "San José")
        #expect(request.queryItems[4].value == nil)
        #expect(request.query("empty") == "")
        #expect(request.query("x=y") == "%zz", "a malformed escape stays literal")
    }

    @Test func pathIsPercentDecodedButPlusIsNot() {
        let request = Request(method: .get, target: "/a%20b/c+d?x=1")
        #expect(request.path == "/a b/c+d")
        #expect(request.target == "/a%20b/c+d?x=1")
    }

    @Test func fragmentIsDroppedAndEmptyPathIsRoot() {
        #expect(Request(method: .get, target: "/page#top").path == "/page")
        #expect(Request(method: .get, target: "/page?x=1#top").rawQuery == "x=1")
        #expect(Request(method: .get, target: "?x=1").path == "/")
    }

    @Test func rawPathIsTheTargetUpToItsFirstQuestionMark() {
        #expect(Request(method: .get, target: "/a%20b/c?x=1?y").rawPath == "/a%20b/c")
        #expect(Request(method: .get, target: "/plain").rawPath == "/plain")
        #expect(Request(method: .get, target: "/page#top?x").rawPath == "/page#top", "even after a fragment")
        #expect(Request(method: .get, target: "/é/ü?x").rawPath == "/é/ü")
        // Worked out when the request is made: a target set later (a scope's path prefix taken
        // off) is worked out again.
        var request = Request(method: .get, target: "/__scope/ci-1/items?view=full")
        request.target = "/items?view=full"
        #expect(request.rawPath == "/items")
        request.target = "/all"
        #expect(request.rawPath == "/all")
    }

    @Test func absoluteFormTargetRoutesByItsPath() {
        let request = Request(method: .get, target: "http://example.com:8080/shop/en?x=1")
        #expect(request.path == "/shop/en")
        #expect(request.query("x") == "1")
        // Matched and journaled in origin form, as any other request; the server it named is kept.
        #expect(request.target == "/shop/en?x=1" && request.rawPath == "/shop/en")
        #expect(request.proxiedAuthority == "example.com:8080" && request.isProxied)
        let bare = Request(method: .get, target: "http://example.com")
        #expect(bare.path == "/" && bare.target == "/" && bare.proxiedAuthority == "example.com")
        #expect(Request(method: .get, target: "http://example.com?q=1").target == "/?q=1")
        #expect(!Request(method: .get, target: "/shop").isProxied)
    }

    @Test func headersKeepRepeatsAndMatchNamesCaseInsensitively() {
        var headers: HTTPHeaders = ["Accept": "text/xml", "X-Tag": "a"]
        headers.add("x-tag", "b")
        #expect(headers["ACCEPT"] == "text/xml")
        #expect(headers.values(for: "X-TAG") == ["a", "b"])
        headers.set("X-Tag", "c")
        #expect(headers.values(for: "x-tag") == ["c"])
        headers.remove("accept")
        #expect(!headers.contains("Accept"))
        #expect(!HTTPHeaders.namesEqual("@", "`"), "only letters compare case-insensitively")
        #expect(!HTTPHeaders.namesEqual("Host", "Hosts"))
    }

    @Test func cookiesComeFromEveryCookieHeader() {
        let request = Request(
            method: .get, target: "/",
            headers: [
                "Cookie": "WC_SESSION_ESTABLISHED=true; WC_ACTIVEPOINTER=\"-1,10152\""
            ])
        var withSecond = request
        withSecond.headers.add("Cookie", "theme=dark")
        #expect(withSecond.cookie("WC_ACTIVEPOINTER") == "-1,10152")
        #expect(withSecond.cookies.map(\.name) == ["WC_SESSION_ESTABLISHED", "WC_ACTIVEPOINTER", "theme"])
    }

    @Test func formDecodingMatchesQueryRules() {
        #expect(
            FormURLEncoding.decode("sql_stmt=select+*+from+customer&tableName=customer") == [
                QueryItem(name: "sql_stmt", value: "select * from customer"),
                QueryItem(name: "tableName", value: "customer"),
            ])
    }

    @Test func dateHeaderIsIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}
