import Testing

@testable import JSON

/// Duplicate keys are found by hashing past the first few members: reading a 200,000-key object
/// is linear (searched in order, it took minutes), with the same answer as before: the last value
/// of a key, at the place of its first.
@Suite(.timeLimit(.minutes(1))) struct LargeObjectTests {
    @Test func aLargeObjectKeepsOrderAndTheLastOfEachDuplicate() throws {
        let count = 200_000
        var text = "{"
        for index in 0..<count { text += "\"k\(index)\":\(index)," }
        // Duplicates of an early key (inside the first 16) and of a late one.
        text += "\"k3\":\"three\",\"k\(count - 1)\":\"last\"}"
        guard case .object(let members) = try JSONValue.parse(text) else {
            Issue.record("not an object")
            return
        }
        #expect(members.count == count)
        #expect(members[3] == ("k3", .string("three")))
        #expect(members[count - 1] == ("k\(count - 1)", .string("last")))
        #expect(members[17] == ("k17", .int(17)))
    }

    @Test func smallObjectsStillTakeTheLastDuplicate() throws {
        #expect(try JSONValue.parse(#"{"a":1,"b":2,"a":3}"#) == .object([("a", 3), ("b", 2)]))
        let seventeen = (0..<17).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let parsed = try JSONValue.parse("{" + seventeen + ",\"k16\":0,\"k0\":-1}")
        #expect(parsed.objectValue?.count == 17)
        #expect(parsed["k0"] == .int(-1) && parsed["k16"] == .int(0))
        #expect(parsed.objectValue?.first?.0 == "k0")
    }
}
