import Foundation
import JSON
import MockCore
import Testing
import UnderstudyTesting

@testable import Stubs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ResponseTemplatingTests {
    /// The stubs of `files`, answered in memory, following WireMock 3 unless told `.v2` (the tests
    /// that show 2.35's HTML-escaping of `{{x}}`).
    func serve(_ files: [String: String], globalTemplating: Bool = false, version: WireMockVersion = .v3) throws -> (BackendTester, StubEngine, URL) {
        let root = try makeTemporaryDirectory(files)
        let engine = StubEngine(stubsDirectory: root, globalTemplating: globalTemplating, wireMockVersion: version)
        return (try BackendTester(backends: [engine]), engine, root)
    }

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func theRequestModelInBodyAndHeaders() async throws {
        let body =
            "{{request.method}} {{{request.url}}} {{request.url}} {{request.path}} {{request.path.[1]}} {{request.pathSegments.[2]}} "
            + "q={{request.query.q}} second={{request.query.q.[1]}} h={{request.headers.x-trace}} c={{request.cookies.session}} "
            + "b={{request.body}} base={{request.baseUrl}}"
        let (server, _, root) = try serve(
            [
                "mappings/echo.json": """
                {"request": {"urlPathPattern": "/echo/.*"},
                 "response": {"status": 201, "body": \(JSONValue.string(body).serialized),
                              "headers": {"X-Echo": "{{request.query.q}}", "Location": "/made/{{request.pathSegments.[1]}}"},
                              "transformers": ["response-template"]}}
                """
            ], version: .v2)
        defer { try? FileManager.default.removeItem(at: root) }
        let (data, response) = try await server.send(
            "POST", "/echo/a/b?q=1&q=2", headers: ["X-Trace": "t-9", "Cookie": "session=s1"], body: Data("hello".utf8))
        #expect(response.statusCode == 201)
        #expect(
            text(data)
                == "POST /echo/a/b?q=1&q=2 /echo/a/b?q&#x3D;1&amp;q&#x3D;2 /echo/a/b a b q=1 second=2 h=t-9 c=s1 b=hello base=http://\(BackendTester.authority)"
        )
        #expect(response.value(forHTTPHeaderField: "X-Echo") == "1")
        #expect(response.value(forHTTPHeaderField: "Location") == "/made/a")
    }

    @Test func jsonPathXPathAndJSONBodies() async throws {
        let (server, _, root) = try serve([
            "mappings/json.json":
                #"{"request": {"method": "POST", "url": "/orders"}, "response": {"jsonBody": {"id": "{{jsonPath request.body '$.order.id'}}", "items": "{{size (jsonPath request.body '$.order.items')}}", "first": "{{jsonPath request.body '$.order.items[0].sku'}}"}, "transformers": ["response-template"]}}"#,
            "mappings/xml.json":
                #"{"request": {"method": "POST", "url": "/xml"}, "response": {"body": "<name>{{xPath request.body '/person/name/text()'}}</name>", "transformers": ["response-template"]}}"#,
            "mappings/plain.json": #"{"request": {"url": "/plain"}, "response": {"body": "{{request.path}} is not rendered"}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let order = #"{"order": {"id": "A7", "items": [{"sku": "s1"}, {"sku": "s2"}]}}"#
        let json = try JSONValue.parse(try await server.send("POST", "/orders", body: Data(order.utf8)).body.map { $0 })
        #expect(json == .object([("id", "A7"), ("items", "2"), ("first", "s1")]))
        #expect(text(try await server.send("POST", "/xml", body: Data("<person><name>Ann</name></person>".utf8)).body) == "<name>Ann</name>")
        #expect(text(try await server.send("GET", "/plain").body) == "{{request.path}} is not rendered", "only mappings that ask are templates")
    }

    @Test func globalTemplatingRendersEveryMapping() async throws {
        let (server, _, root) = try serve(
            [
                "mappings/plain.json": #"{"request": {"url": "/plain"}, "response": {"body": "{{request.path}}"}}"#,
                // Nothing varies here: rendered once at load, still with the template's meaning.
                "mappings/constant.json":
                    #"{"request": {"url": "/constant"}, "response": {"body": "literal \\{{braces}}", "headers": {"X-Fixed": "yes"}}}"#,
            ], globalTemplating: true)
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("GET", "/plain").body) == "/plain")
        let (constant, response) = try await server.send("GET", "/constant")
        #expect(text(constant) == "literal {{braces}}")
        #expect(response.value(forHTTPHeaderField: "X-Fixed") == "yes")
    }

    @Test func bodyFilesAreTemplatesAndTheirNamesMayBeToo() async throws {
        let (server, _, root) = try serve(
            [
                "mappings/user.json":
                    #"{"request": {"urlPathPattern": "/users/[a-z]+"}, "response": {"bodyFileName": "users/{{request.pathSegments.[1]}}.json", "transformers": ["response-template"]}}"#,
                "mappings/page.json":
                    #"{"request": {"urlPath": "/page"}, "response": {"bodyFileName": "page.html", "transformers": ["response-template"]}}"#,
                "mappings/raw.json":
                    #"{"request": {"urlPath": "/raw"}, "response": {"bodyFileName": "page.html", "transformers": ["response-template"], "transformerParameters": {"disableBodyFileTemplating": true}}}"#,
                "__files/users/ann.json": #"{"name": "Ann", "asked": "{{request.query.x}}"}"#,
                "__files/page.html": "<p>{{request.query.who}}</p>",
            ], version: .v2)
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("GET", "/users/ann?x=1").body) == #"{"name": "Ann", "asked": "1"}"#)
        let missing = try await server.send("GET", "/users/bob")
        #expect(missing.response.statusCode == 404)
        #expect(text(missing.body).contains("no file 'users/bob.json'"))
        #expect(text(try await server.send("GET", "/page?who=%3Cb%3E").body) == "<p>&lt;b&gt;</p>")
        #expect(text(try await server.send("GET", "/raw?who=x").body) == "<p>{{request.query.who}}</p>")
    }

    @Test func urlPathTemplateMatchesSegmentsAndNamesThem() async throws {
        let (server, _, root) = try serve([
            "mappings/contact.json":
                #"{"request": {"urlPathTemplate": "/contacts/{contactId}/addresses/{addressId}", "pathParameters": {"addressId": {"matches": "[0-9]+"}}}, "response": {"body": "{{request.path.contactId}}/{{request.path.addressId}}", "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("GET", "/contacts/c%2012/addresses/7").body) == "c 12/7")
        #expect(try await server.send("GET", "/contacts/c/addresses/x").response.statusCode == 404)
        #expect(try await server.send("GET", "/contacts/c/addresses").response.statusCode == 404)
        #expect(try await server.send("GET", "/contacts/c/addresses/7/more").response.statusCode == 404)
    }

    @Test func templateErrorsAreLoadErrorsWithLineAndColumn() throws {
        let root = try makeTemporaryDirectory([
            "mappings/bad.json":
                #"{"request": {"url": "/t"}, "response": {"body": "ok\n{{#each request.query}}", "transformers": ["response-template"]}}"#,
            "mappings/unknown.json":
                #"{"request": {"url": "/u"}, "response": {"body": "{{shout request.url}}", "transformers": ["response-template"]}}"#,
            "mappings/template-path.json": #"{"request": {"urlPathTemplate": "/a/{b"}, "response": {}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let errors = StubEngine(stubsDirectory: root).reloadFiles().map(\.description)
        #expect(errors.contains { $0.hasSuffix("bad.json:1: response.body: template line 2, column 1: {{#each}} is never closed") })
        #expect(errors.contains { $0.hasSuffix("unknown.json:1: response.body: template line 1, column 1: unknown helper 'shout'") })
        #expect(errors.contains { $0.contains("template-path.json:1: request.urlPathTemplate") })
    }

    @Test func fixtureFilesFeedPages() async throws {
        let (server, _, root) = try serve([
            "mappings/list.json":
                #"{"request": {"urlPath": "/list"}, "response": {"body": "{{#each (fixture 'items.json')}}<a href='{{url}}'>{{name}}</a>{{/each}}", "transformers": ["response-template"]}}"#,
            "items.json": #"[{"name": "One", "url": "tt://one"}, {"name": "Two & co", "url": "tt://two"}]"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("GET", "/list").body) == "<a href='tt://one'>One</a><a href='tt://two'>Two & co</a>")
    }

    // The expected texts of the tests below were checked against WireMock 2.35.1's answers to the
    // same mappings and requests.

    @Test func requestLineDecodedPathAndRepeatedQueryValues() async throws {
        let body =
            "{{request.path}}|{{request.path.[1]}}|{{request.pathSegments.[1]}}|{{request.requestLine.method}}|{{request.requestLine.scheme}}|"
            + "{{request.requestLine.path}}|{{request.requestLine.pathSegments}}|{{request.requestLine.pathSegments.[0]}}|{{request.requestLine.query.x}}|"
            + "{{request.query.x}}|{{#eq request.query.x 'a'}}EQ{{else}}NE{{/eq}}|{{request.query.x.last}}|{{request.query.x.[1]}}|"
            + "{{request.requestLine.host}}:{{request.requestLine.port}} {{request.requestLine.baseUrl}}"
            // WireMock counts [-1] from the next to last value (ListOrSingle.get), in 2.35 and 3.13 alike.
            + "|{{request.query.x.[-1]}}|{{size request.pathSegments}}"
        let (server, _, root) = try serve([
            "mappings/echo.json":
                #"{"request": {"urlPathPattern": "/echo/.*"}, "response": {"body": \#(JSONValue.string(body).serialized), "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let host = BackendTester.authority
        #expect(
            text(try await server.send("GET", "/echo/a%20b/c?x=a&x=b").body)
                == "/echo/a b/c|a b|a b|GET|http|/echo/a b/c|/echo/a b/c|echo|a|a|NE|b|b|\(host) http://\(host)|a|3")
        let encodedSlash = text(try await server.send("GET", "/echo/a%20b/c%2Fd").body)
        #expect(encodedSlash.hasPrefix("/echo/a b/c/d|a b|a b|GET|http|/echo/a b/c/d|/echo/a b/c/d|echo|") && encodedSlash.hasSuffix("|4"))
    }

    // Cases of WireMock's ResponseTemplateTransformerTest (2.35.1 and 3.13.2 expect the same):
    // requestLinePathSegments, listElementOffsetFromEnd(2), arrayStyleQueryParametersCanBeLookedUp
    // (the `ids[]` lookup), base64DecodeValueWithoutPadding, and the range helper's error text.
    @Test func wireMocksOwnTemplateCasesForPathsListsLookupsAndErrors() async throws {
        let body =
            "path segments: {{{request.pathSegments}}}|{{request.pathSegments.[0]}}|{{request.query.things.[-2]}}|{{request.query.things.[-1]}}|"
            + "1: {{lookup request.query 'ids[].0'}}, 3: {{lookup request.query 'ids[].2'}}|{{lookup request.query 'none.0'}}|"
            + "{{{base64 'aGVsbG8' decode=true}}}|{{{base64 'aGVsbG8=' decode=true}}}|{{range 555}}"
        let (server, _, root) = try serve([
            "mappings/t.json":
                #"{"request": {"urlPathPattern": "/the/.*"}, "response": {"body": \#(JSONValue.string(body).serialized), "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let answer = text(
            try await server.send("GET", "/the/entire/path?things=1&things=2&things=3&things=4&ids%5B%5D=111&ids%5B%5D=222&ids%5B%5D=333").body)
        #expect(
            answer
                == "path segments: /the/entire/path|the|2|3|1: 111, 3: 333||hello|hello|"
                + "[ERROR: The range helper requires both lower and upper bounds as integer parameters]")
    }

    @Test func jsonPathResultsPrintAsJSON() async throws {
        let body =
            #"{{jsonPath request.body '$.obj'}}|{{{jsonPath request.body '$.obj'}}}|{{{jsonPath request.body '$.list'}}}|{{{jsonPath request.body '$.e'}}}|"#
            + #"{{{jsonPath request.body '$.list[1]'}}}|{{{parseJson request.body}}}|{{size (jsonPath request.body '$.list')}}|"#
            + #"{{join (jsonPath request.body '$.obj.l') '-'}}|{{#each (jsonPath request.body '$.obj.l')}}<{{this}}>{{/each}}"#
        let (server, _, root) = try serve(
            [
                "mappings/json.json":
                    #"{"request": {"url": "/json"}, "response": {"body": \#(JSONValue.string(body).serialized), "transformers": ["response-template"]}}"#
            ], version: .v2)
        defer { try? FileManager.default.removeItem(at: root) }
        let sent = #"{"obj":{"a":"x","n":1.5,"l":[1,2]},"list":["p",{"q":true}],"e":{}}"#
        let pretty = "{\n  \"a\" : \"x\",\n  \"n\" : 1.5,\n  \"l\" : [ 1, 2 ]\n}"
        #expect(
            text(try await server.send("POST", "/json", body: Data(sent.utf8)).body)
                == pretty.replacingOccurrences(of: "\"", with: "&quot;") + "|" + pretty + #"|["p",{"q":true}]|{ }|{\#n  "q" : true\#n}|"#
                + "{obj={a=x, n=1.5, l=[1, 2]}, list=[p, {q=true}], e={}}|2|1-2|<1><2>")
    }

    @Test func soapXPathReadsInsideTheBody() async throws {
        let (server, _, root) = try serve([
            "mappings/soap.json":
                #"{"request": {"url": "/soap"}, "response": {"body": "[{{soapXPath request.body '/order/id/text()'}}]", "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let envelope =
            #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header/><soap:Body><order><id>42</id></order></soap:Body></soap:Envelope>"#
        #expect(text(try await server.send("POST", "/soap", body: Data(envelope.utf8)).body) == "[42]")
        for hostile in ["not xml", "", "<a>", "<!DOCTYPE a [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><a>&e;</a>"] {
            let answer = text(try await server.send("POST", "/soap", body: Data(hostile.utf8)).body)
            // WireMock's words: the input, then "is not valid XML".
            #expect(answer.hasPrefix("[[ERROR: ") && answer.hasSuffix(" is not valid XML]]"), "\(hostile) -> \(answer)")
        }
    }

    @Test func serverValuesAreGuarded() async throws {
        ProcessEnvironment.set("wiremock.test.region", "eu")
        ProcessEnvironment.set("WIREMOCK_TEST_FLAG", "up")
        let body =
            "[{{systemValue type='ENVIRONMENT' key='PATH'}}]|[{{systemValue key='HOME'}}]|[{{systemValue type='PROPERTY' key='java.version'}}]|"
            + "[{{systemValue type='ENVIRONMENT' key='wiremock.test.region'}}]|[{{systemValue key='WIREMOCK_TEST_FLAG'}}]|[{{systemValue key='wiremock.none'}}]|"
            + "[{{log 'hello' request.method level='warn'}}]|{{hostname}}"
        let (server, _, root) = try serve([
            "mappings/system.json":
                #"{"request": {"url": "/system"}, "response": {"body": \#(JSONValue.string(body).serialized), "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let answer = text(try await server.send("GET", "/system").body)
        #expect(
            answer.hasPrefix(
                "[[ERROR: Access to PATH is denied]]|[[ERROR: Access to HOME is denied]]|[[ERROR: Access to java.version is denied]]|[eu]|[up]|[]|[]|"
            ))
        let hostname = try #require(answer.split(separator: "|").last)
        #expect(!hostname.isEmpty && !hostname.contains("ERROR"))
    }

    @Test func formDataAndAssignedVariablesInAResponse() async throws {
        let body =
            "{{formData request.body 'form' urlDecode=true}}{{#assign 'greeting'}}Hi {{form.name}}{{/assign}}{{greeting}} ({{form.tag}}, {{form.tag.[1]}})"
        let (server, _, root) = try serve([
            "mappings/form.json":
                #"{"request": {"url": "/form"}, "response": {"body": \#(JSONValue.string(body).serialized), "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("POST", "/form", body: Data("name=Ann+Lee&tag=a&tag=b%26c".utf8)).body) == "Hi Ann Lee (a, b&c)")
    }

    /// WireMock 3.13's ResponseTemplatingAcceptanceTest.escapingIsDisabledByDefault and
    /// Escaping.escapingIsEnabled: 3.x prints `{{x}}` as it is, 2.x (and 3.x configured to)
    /// HTML-escapes it.
    @Test func wireMock3PrintsValuesAsTheyAreAndWireMock2EscapesThem() async throws {
        let mapping =
            #"{"request": {"method": "POST", "url": "/noescape"}, "response": {"body": "{\"test\": \"{{jsonPath request.body '$.a.test'}}\"}", "transformers": ["response-template"]}}"#
        let sent = Data(#"{"a": {"test": "look at my 'single quotes'"}}"#.utf8)
        for (version, expected) in [
            (WireMockVersion.v3, #"{"test": "look at my 'single quotes'"}"#),
            (.v2, #"{"test": "look at my &#x27;single quotes&#x27;"}"#),
        ] {
            let (server, _, root) = try serve(["mappings/noescape.json": mapping], version: version)
            defer { try? FileManager.default.removeItem(at: root) }
            #expect(text(try await server.send("POST", "/noescape", body: sent).body) == expected, "WireMock \(version.rawValue)")
        }
    }

    /// Cases where WireMock 2.35.1 answered differently before (probed against the real jar):
    /// `math` on a query value, and `parseJson` into a variable, inline and as a block.
    @Test func mathOnQueryValuesAndParseJsonIntoVariables() async throws {
        let body =
            "{{math request.query.n '+' 1}}|{{math request.query.n '*' request.query.n}}|"
            + "[{{parseJson request.body 'obj'}}]{{obj.name}}|{{#parseJson 'other'}}{\"name\":\"b\"}{{/parseJson}}{{other.name}}|"
            + "{{#parseJson request.body}}{{nothing}}{{/parseJson}}"
        let (server, _, root) = try serve([
            "mappings/t.json":
                #"{"request": {"urlPath": "/t"}, "response": {"body": \#(JSONValue.string(body).serialized), "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(text(try await server.send("POST", "/t?n=4", body: Data(#"{"name":"n"}"#.utf8)).body) == "5|16|[]n|b|{}")
    }

    /// WireMock 3's `request.multipart` and `request.parts` (RequestTemplateModel, RequestPartTemplateModel).
    @Test func multipartPartsInTheModel() async throws {
        let body =
            "{{request.multipart}}|{{request.parts.info.body}}|{{request.parts.info.headers.content-type}}|"
            + "{{request.parts.file.binary}}|{{request.parts.file.bodyAsBase64}}|{{request.parts.info.name}}"
        let (server, _, root) = try serve([
            "mappings/up.json":
                #"{"request": {"urlPath": "/up"}, "response": {"body": \#(JSONValue.string(body).serialized), "transformers": ["response-template"]}}"#
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        var sent = Data(
            "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        sent.append(contentsOf: [0xff, 0xd8, 0x00])
        sent.append(
            Data(
                "\r\n--XyZ\r\nContent-Disposition: form-data; name=\"info\"\r\nContent-Type: application/json\r\n\r\n{\"kind\": \"photo\"}\r\n--XyZ--\r\n"
                    .utf8))
        let (answer, _) = try await server.send("POST", "/up", headers: ["Content-Type": "multipart/form-data; boundary=XyZ"], body: sent)
        #expect(text(answer) == #"true|{"kind": "photo"}|application/json|true|/9gA|info"#)
        #expect(text(try await server.send("POST", "/up", body: Data("plain".utf8)).body) == "false|||||")
    }
}
