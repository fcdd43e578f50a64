import JSON
import Testing

@testable import Stubs

/// WireMock 4's number matchers, with the cases of its EqualToNumberPatternTest,
/// GreaterThanNumberPatternTest and LessThanEqualNumberPatternTest (wiremock-core/src/test/java/
/// com/github/tomakehurst/wiremock/matching/).
@Suite struct NumberPatternTests {
    func number(_ json: String) throws -> ContentPattern {
        try ContentPattern.parse(try JSONValue.parse(json), field: "queryParameters.n")
    }

    @Test func comparisons() throws {
        #expect(try !number(#"{"equalToNumber": 5}"#).matches("1"))
        #expect(try !number(#"{"equalToNumber": 1}"#).matches("1111"))
        #expect(try number(#"{"equalToNumber": 1.1111}"#).matches("0001.1111000"))
        #expect(try number(#"{"equalToNumber": "1"}"#).matches("1.0"), "a numeric string operand")
        #expect(try !number(#"{"equalToNumber": 1}"#).matches("a string"))
        #expect(try !number(#"{"equalToNumber": 1}"#).matches(nil))
        #expect(try !number(#"{"greaterThanNumber": 1}"#).matches("1"))
        #expect(try number(#"{"greaterThanNumber": 1}"#).matches("2"))
        #expect(try number(#"{"greaterThanNumber": "0001.0000"}"#).matches("1.5"))
        #expect(try number(#"{"lessThanEqualNumber": 1}"#).matches("1"))
        #expect(try number(#"{"lessThanEqualNumber": 1.1111}"#).matches("1.111"))
        #expect(try number(#"{"greaterThanEqualNumber": 2}"#).matches("2"))
        #expect(try !number(#"{"lessThanNumber": 2}"#).matches("2"))
        #expect(try number(#"{"lessThanNumber": 2}"#).matches(" 1.5d "), "as Java's Double.parseDouble reads it")
        #expect(try number(#"{"greaterThanNumber": 100}"#).matches("1e3"))
        #expect(try !number(#"{"greaterThanNumber": 0}"#).matches("inf"), "Java spells it Infinity")
        #expect(try number(#"{"greaterThanNumber": 0}"#).matches("Infinity"))
    }

    @Test func anOperandThatIsNotANumberIsRefused() {
        do {
            _ = try number(#"{"greaterThanNumber": "a string"}"#)
            Issue.record("accepted")
        } catch {
            #expect((error as? StubError)?.message == "greaterThanNumber has to be a numeric value")
            #expect((error as? StubError)?.field == "queryParameters.n.greaterThanNumber")
        }
    }
}
