import Foundation
import HTTPServer
import JSON
import MockCore
import Testing

@testable import Stubs

func pattern(_ json: String) throws -> RequestPattern {
    try RequestPattern.parse(try JSONValue.parse(json))
}

func content(_ json: String) throws -> ContentPattern {
    try ContentPattern.parse(try JSONValue.parse(json), field: "test")
}

@Suite struct ContentPatternTests {
    @Test func stringOperators() throws {
        #expect(try content(#"{"equalTo": "en"}"#).matches("en"))
        #expect(try !content(#"{"equalTo": "en"}"#).matches("EN"))
        #expect(try content(#"{"equalTo": "en", "caseInsensitive": true}"#).matches("EN"))
        #expect(try content(#"{"contains": "json"}"#).matches("application/json"))
        #expect(try content(#"{"doesNotContain": "xml"}"#).matches("application/json"))
        #expect(try content(#"{"doesNotContain": "xml"}"#).matches(nil))
        #expect(try content(#"{"matches": "^(asc|desc)$"}"#).matches("asc"))
        #expect(try !content(#"{"matches": "asc|desc"}"#).matches("ascending"), "a regex must match the whole value")
        #expect(try content(#"{"doesNotMatch": ".*bot.*"}"#).matches("Safari"))
        #expect(try content(#"{"absent": true}"#).matches(nil))
        #expect(try !content(#"{"absent": true}"#).matches(""))
        #expect(try content(#"{"not": {"equalTo": "a"}}"#).matches("b"))
        #expect(try content(#"{"and": [{"contains": "a"}, {"contains": "b"}]}"#).matches("ab"))
        #expect(try !content(#"{"or": [{"equalTo": "a"}, {"equalTo": "b"}]}"#).matches("c"))
        #expect(try content(#"{"binaryEqualTo": "aGk="}"#).matches(body: Array("hi".utf8)))
    }

    @Test func jsonOperators() throws {
        let body = #"{"name": "Tom", "id": "u-1", "tags": ["b", "a"], "age": 42, "address": {"city": "Sunnyvale"}}"#
        #expect(
            try content(#"{"equalToJson": {"id": "u-1", "name": "Tom", "tags": ["b", "a"], "age": 42, "address": {"city": "Sunnyvale"}}}"#).matches(
                body))
        #expect(try !content(#"{"equalToJson": {"name": "Tom"}}"#).matches(body))
        #expect(try content(#"{"equalToJson": {"name": "Tom"}, "ignoreExtraElements": true}"#).matches(body))
        #expect(try !content(#"{"equalToJson": {"tags": ["a", "b"]}, "ignoreExtraElements": true}"#).matches(body))
        #expect(try content(#"{"equalToJson": {"tags": ["a", "b"]}, "ignoreExtraElements": true, "ignoreArrayOrder": true}"#).matches(body))
        #expect(
            try content(
                #"{"equalToJson": "{\"name\": \"${json-unit.any-string}\", \"age\": \"${json-unit.any-number}\"}", "ignoreExtraElements": true}"#
            ).matches(body))
        #expect(try content(#"{"matchesJsonPath": "$.address.city"}"#).matches(body))
        #expect(try !content(#"{"matchesJsonPath": "$.address.zip"}"#).matches(body))
        #expect(try content(#"{"matchesJsonPath": {"expression": "$.age", "matches": "^[0-9]+$"}}"#).matches(body))
        #expect(try content(#"{"matchesJsonPath": "$.tags[?(@ == 'a')]"}"#).matches(body), "@ alone is the element itself")
        #expect(try !content(#"{"matchesJsonPath": "$.tags[?(@ == 'z')]"}"#).matches(body))
        #expect(try content(#"{"matchesJsonPath": "$[?(@.age > 40)]"}"#).matches("[" + body + "]"))
        #expect(try content(#"{"matchesJsonPath": "$..city"}"#).matches(body))
        #expect(try content(#"{"matchesJsonPath": {"expression": "$.tags[-1]", "equalTo": "a"}}"#).matches(body))
        #expect(try !content(#"{"matchesJsonPath": "$.name"}"#).matches("not json"))
    }

    @Test func xmlOperators() throws {
        let order = "<Order id=\"7\"><Amount>5</Amount>\n  <Item>tea</Item></Order>"
        #expect(try content(#"{"equalToXml": "<Order id='7'><Amount>5</Amount><Item>tea</Item></Order>"}"#).matches(order))
        #expect(try !content(#"{"equalToXml": "<Order id='8'><Amount>5</Amount><Item>tea</Item></Order>"}"#).matches(order))
        #expect(try content(#"{"matchesXPath": "//Order/Amount"}"#).matches(order))
        #expect(try content(#"{"matchesXPath": {"expression": "//Order/Amount", "equalTo": "5"}}"#).matches(order))
        #expect(try !content(#"{"matchesXPath": {"expression": "//Order/Amount", "equalTo": "6"}}"#).matches(order))
    }

    @Test func badPatternsSayWhatIsWrong() {
        #expect(throws: StubError.self) { try content(#"{"matches": "("}"#) }
        // WireMock 2.35 and 3.13 refuse a number where a string goes (422), in these words.
        for operator_ in ["equalTo", "matches", "contains"] {
            #expect { try content(#"{"\#(operator_)": 12}"#) } throws: { error in
                (error as? StubError)?.message == "\(operator_) operand must be a non-null string"
            }
        }
        #expect(throws: StubError.self) { try content(#"{"sortOf": "x"}"#) }
        #expect(throws: StubError.self) { try content(#"{"matchesJsonPath": "name"}"#) }
    }
}

@Suite struct RequestPatternTests {
    func request(_ method: HTTPMethod = .get, _ target: String, headers: HTTPHeaders = [:], body: String = "") -> Request {
        Request(method: method, target: target, headers: headers, body: Array(body.utf8))
    }

    /// WireMock 3.13's `clientIp`: a string pattern, or a plain string for equalTo.
    @Test func clientIp() throws {
        var phone = request(.get, "/a")
        phone.remoteAddress = "192.168.1.20"
        #expect(try pattern(#"{"clientIp": "192.168.1.20"}"#).evaluate(phone).matched)
        #expect(try !pattern(#"{"clientIp": "192.168.1.20"}"#).evaluate(request(.get, "/a")).matched)
        #expect(try pattern(#"{"clientIp": {"matches": "192\\.168\\..*"}}"#).evaluate(phone).matched)
        let missed = try pattern(#"{"clientIp": {"equalTo": "10.0.0.1"}}"#).evaluate(phone)
        #expect(missed.misses == ["client IP is 192.168.1.20, expected equal to '10.0.0.1'"], "\(missed.misses)")
        #expect(throws: StubError.self) { try pattern(#"{"clientIp": {"equalT": "x"}}"#) }
        // StubbingWithBrowserProxyAcceptanceTest.matchesClientIp (3.13): X-Forwarded-For, as sent, wins.
        var proxied = request(.get, "/a", headers: ["X-Forwarded-For": "192.168.1.1"])
        proxied.remoteAddress = "127.0.0.1"
        #expect(try pattern(#"{"clientIp": {"equalTo": "192.168.1.1"}}"#).evaluate(proxied).matched)
        #expect(try !pattern(#"{"clientIp": {"equalTo": "192.168.100.1"}}"#).evaluate(proxied).matched)
        let chain = request(.get, "/a", headers: ["X-Forwarded-For": "1.2.3.4, 5.6.7.8"])
        #expect(chain.clientIP == "1.2.3.4, 5.6.7.8", "the header whole, as WireMock reads it")
        #expect(request(.get, "/a", headers: ["X-Forwarded-For": ""]).clientIP == request(.get, "/a").remoteAddress, "an empty one is none")
    }

    @Test func urlForms() throws {
        #expect(try pattern(#"{"url": "/a?b=1"}"#).evaluate(request(.get, "/a?b=1")).matched)
        #expect(try !pattern(#"{"url": "/a"}"#).evaluate(request(.get, "/a?b=1")).matched)
        #expect(try pattern(#"{"urlPath": "/a"}"#).evaluate(request(.get, "/a?b=1")).matched)
        #expect(try pattern(#"{"urlPattern": "/a\\?b=[0-9]"}"#).evaluate(request(.get, "/a?b=1")).matched)
        #expect(try pattern(#"{"urlPathPattern": "/users/[0-9]+"}"#).evaluate(request(.get, "/users/42?x=y")).matched)
        #expect(try pattern(#"{"method": "ANY", "urlPath": "/a"}"#).evaluate(request(.delete, "/a")).matched)
        #expect(try !pattern(#"{"method": "POST", "urlPath": "/a"}"#).evaluate(request(.get, "/a")).matched)
        #expect(
            try !pattern(#"{"method": "GET", "urlPath": "/a"}"#).evaluate(request(.head, "/a")).matched, "HEAD is not a GET stub's, as in WireMock")
        #expect(try pattern(#"{"method": "HEAD", "urlPath": "/a"}"#).evaluate(request(.head, "/a")).matched)
        #expect(try pattern(#"{"method": "ANY", "urlPath": "/a"}"#).evaluate(request(.head, "/a")).matched)
        // Two URL keys: WireMock's order decides (url, urlPattern, urlPath, urlPathPattern).
        #expect(try !pattern(#"{"urlPath": "/a", "url": "/a?b=1"}"#).evaluate(request(.get, "/a")).matched)
        #expect(try pattern(#"{"urlPath": "/a", "url": "/a?b=1"}"#).evaluate(request(.get, "/a?b=1")).matched)
    }

    @Test func parametersHeadersCookiesFormsAndAuth() throws {
        let p = try pattern(
            #"""
            {"method": "POST", "urlPath": "/informix/generic.php",
             "queryParameters": {"lang": {"equalTo": "en"}, "debug": {"absent": true}, "id": {"hasExactly": [{"equalTo": "1"}, {"equalTo": "2"}]}},
             "headers": {"content-type": {"contains": "form"}},
             "cookies": {"session": {"matches": "[a-f0-9]+"}},
             "formParameters": {"tableName": {"equalTo": "customer"}},
             "basicAuthCredentials": {"username": "jane", "password": "secret"}}
            """#)
        let good = request(
            .post, "/informix/generic.php?lang=en&id=2&id=1",
            headers: [
                "Content-Type": "application/x-www-form-urlencoded", "Cookie": "session=abc123",
                "Authorization": "Basic " + Data("jane:secret".utf8).base64EncodedString(),
            ], body: "sql_stmt=select+1&tableName=customer")
        #expect(p.evaluate(good).matched)
        var bad = good
        bad.target = "/informix/generic.php?lang=en&id=1&debug=1"
        bad = request(.post, bad.target, headers: good.headers, body: "tableName=orders")
        let result = p.evaluate(bad)
        #expect(!result.matched)
        #expect(result.misses.contains("query parameter debug is '1', expected absent"))
        #expect(result.misses.contains("query parameter id is '1', expected exactly equal to '1', equal to '2'"))
        #expect(result.misses.contains("form parameter tableName is 'orders', expected equal to 'customer'"))
        #expect(result.distance > 0 && result.distance < 1)
    }
}
