import Testing
import XML

/// An XPath that compares every pair of nodes (`//*[. = //*]`: over 20,000 elements, 400 million
/// comparisons of subtree texts) gives up at libxml2's step limit with an error that says so,
/// instead of holding the event loop that evaluates it.
@Suite(.timeLimit(.minutes(1))) struct XPathStepLimitTests {
    @Test func aQuadraticExpressionStopsAtTheStepLimit() throws {
        let items = (0..<20_000).map { "<i>\($0)</i>" }.joined()
        let tree = try XMLTree.parse("<list>" + items + "</list>")
        #expect(throws: XMLReadError.self) { try tree.evaluate(xPath: "//*[. = //*]") }
        do {
            _ = try tree.evaluate(xPath: "count(//i[. = //i])")
            Issue.record("the pairwise XPath was evaluated in full")
        } catch {
            #expect(error.message.contains("takes more than \(XMLTree.xPathStepLimit) steps"))
        }
        // What is linear in the document still runs in full.
        #expect(try tree.evaluate(xPath: "count(//i)") == ["20000"])
        #expect(try tree.evaluate(xPath: "//i[. = '19999']") == ["19999"])
    }
}
