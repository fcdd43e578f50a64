import JSON
import Testing

@testable import GraphQLMatching

@Suite struct GraphQLDocumentTests {
    @Test func theSameQueryWrittenOtherwiseIsEqual() throws {
        let a = try GraphQLDocument(parsing: "query Hero($id: ID!) { hero(id: $id, lang: \"en\") { name friends { id name } } }")
        let b = try GraphQLDocument(
            parsing: """
                # a comment
                query Hero($id: ID!) {
                  hero(lang: \"\"\"en\"\"\", id: $id) {
                    friends { name, id }
                    name
                  }
                }
                """)
        #expect(a == b)
        #expect(a.operations.map(\.name) == ["Hero"])
        #expect(a.fieldPaths.contains("query Hero.hero.friends.name"))
        #expect(try GraphQLDocument(parsing: "{ hero { name } }") != GraphQLDocument(parsing: "{ hero { id } }"))
        #expect(try GraphQLDocument(parsing: "{ hero(id: 1) { name } }") != GraphQLDocument(parsing: "{ hero(id: 2) { name } }"))
    }

    /// graphql-java's sort is by field name and stable: aliased copies of one field keep their
    /// written order, fragments and operations sort by name, `{…}` is `query {…}`.
    @Test func theSortIsAstSortersOwn() throws {
        #expect(
            try GraphQLDocument(parsing: "{ a: hero(id: 1) { name } b: hero(id: 2) { name } }")
                != GraphQLDocument(parsing: "{ b: hero(id: 2) { name } a: hero(id: 1) { name } }"))
        #expect(try GraphQLDocument(parsing: "{ hero { name } }") == GraphQLDocument(parsing: "query { hero { name } }"))
        #expect(
            try GraphQLDocument(parsing: "fragment F on Hero { name } query Q { hero { ...F } }")
                == GraphQLDocument(parsing: "query Q { hero { ...F } } fragment F on Hero { name }"))
        #expect(
            try GraphQLDocument(parsing: "fragment F on Hero { name } query Q { hero { ...F } }")
                != GraphQLDocument(parsing: "fragment G on Hero { name } query Q { hero { ...G } }"), "fragments compare by name")
        #expect(try GraphQLDocument(parsing: "{ f(x: 1) }") != GraphQLDocument(parsing: "{ f(x: 1.0) }"), "an Int is not a Float")
        #expect(try GraphQLDocument(parsing: "{ f(o: {b: 1, a: [2, 1]}) }") == GraphQLDocument(parsing: "{ f(o: {a: [2, 1], b: 1}) }"))
        #expect(try GraphQLDocument(parsing: "{ f(o: {a: [2, 1]}) }") != GraphQLDocument(parsing: "{ f(o: {a: [1, 2]}) }"), "lists keep their order")
        #expect(try GraphQLDocument(parsing: "{ f @include(if: true) }") != GraphQLDocument(parsing: "{ f }"), "directives count")
        #expect(try GraphQLDocument(parsing: "query ($a: Int, $b: Int!) { f }") == GraphQLDocument(parsing: "query ($b: Int!, $a: Int) { f }"))
        #expect(try GraphQLDocument(parsing: "query ($a: Int) { f }") != GraphQLDocument(parsing: "query ($a: Int!) { f }"))
        #expect(try GraphQLDocument(parsing: "mutation { f }") != GraphQLDocument(parsing: "query { f }"))
    }

    @Test func badDocumentsAreProblemsNeverCrashes() throws {
        for text in [
            "", "{", "query { a(b: ) }", "type Query { a: Int }", String(repeating: "{a", count: 200) + String(repeating: "}", count: 200), "\"\"\"",
            // A \u escape the document ends within: GraphQLSwift's lexer traps on it (found by fuzz-graphql).
            #"{ a(s: "\u"#, #"{ a(s: "\u1"#, #"{ a(s: "\u12"#, #"{ a(s: "\u123"#,
        ] {
            #expect(throws: GraphQLProblem.self, "\(text.prefix(20))") { try GraphQLDocument(parsing: text) }
        }
        #expect(GraphQLDocument.nesting(of: #"{ a(s: "{{{{") { b } }"#) == 2, "braces in strings do not count")
        #expect(GraphQLDocument.nesting(of: "{ a # {{{{\n}") == 1, "nor in comments")
        // A whole \u escape, or an escaped backslash before a u, is read.
        #expect(try GraphQLDocument(parsing: #"{ a(s: "\u00e9") }"#).canonical.contains("a"))
        #expect(try GraphQLDocument(parsing: #"{ a(s: "\\u") }"#).canonical.contains("a"))
    }
}
