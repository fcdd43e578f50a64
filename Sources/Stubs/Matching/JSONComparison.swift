import JSON
import MockCore
import WorkLimits

/// `equalToJson`: structural equality, with WireMock's options and JsonUnit's placeholders
/// (`${json-unit.any-string}`, `${json-unit.any-number}`, `${json-unit.any-boolean}`,
/// `${json-unit.ignore}`) in the expected document.
enum JSONComparison {
    /// False too when the request's budget runs out (every value compared is a step).
    static func equal(_ expected: JSONValue, _ actual: JSONValue, ignoreArrayOrder: Bool, ignoreExtraElements: Bool) -> Bool {
        guard RequestBudget.spend(in: "equalToJson") else { return false }
        if case .string(let text) = expected, text.hasPrefix("${json-unit."), text.hasSuffix("}") {
            switch text {
            case "${json-unit.ignore}", "${json-unit.any-value}": return true
            case "${json-unit.any-string}": return actual.stringValue != nil
            case "${json-unit.any-number}": return actual.doubleValue != nil
            case "${json-unit.any-boolean}": return actual.boolValue != nil
            default: break
            }
        }
        let same = { (a: JSONValue, b: JSONValue) in
            equal(a, b, ignoreArrayOrder: ignoreArrayOrder, ignoreExtraElements: ignoreExtraElements)
        }
        switch (expected, actual) {
        case (.object(let want), .object(let have)):
            if !ignoreExtraElements && want.count != have.count { return false }
            // Keys are unique in a parsed object (the last of duplicates won), so a dictionary finds them.
            let members = Dictionary(have, uniquingKeysWith: { _, last in last })
            return want.allSatisfy { key, value in members[key].map { same(value, $0) } ?? false }
        case (.array(let want), .array(let have)):
            if !ignoreExtraElements && want.count != have.count { return false }
            if !ignoreArrayOrder {
                guard want.count <= have.count else { return false }
                return zip(want, have).allSatisfy(same) && (ignoreExtraElements || want.count == have.count)
            }
            // Each expected element takes a distinct actual element.
            var remaining = have
            for item in want {
                // Pairwise, so quadratic: each comparison is a step of the request's budget.
                guard let match = remaining.firstIndex(where: { same(item, $0) }) else { return false }
                remaining.remove(at: match)
            }
            return true
        case (.int, _), (.double, _):
            guard let a = expected.doubleValue, let b = actual.doubleValue else { return false }
            return a == b
        default:
            return expected == actual
        }
    }
}
