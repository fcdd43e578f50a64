import HTTPServer
import JSON
import Testing

@testable import MockCore

/// A scope's simulated network: what the admin API accepts, and how an answer is paced.
@Suite struct NetworkConditionsTests {
    func parse(_ json: String) throws -> NetworkConditions { try NetworkConditions.parse(try JSONValue.parse(json)) }

    @Test func figuresAndProfilesAreRead() throws {
        let figures = try parse(#"{"latencyMs": 250, "downKbps": 800, "upKbps": 80, "lossPercent": 5}"#)
        #expect(figures.latencyMs == 250 && figures.downKbps == 800 && figures.upKbps == 80 && figures.lossPercent == 5 && !figures.offline)
        #expect(try parse(#"{"profile": "3G"}"#) == NetworkConditions.profiles["3g"], "profile names without case")
        #expect(try parse(#"{"profile": "100-loss"}"#).offline)
        #expect(try parse(#"{"lossPercent": 100}"#).offline, "all lost is offline")
        #expect(try parse("{}") == NetworkConditions())
        for bad in [#"{"downKbps": 0}"#, #"{"latencyMs": -1}"#, #"{"latencyMs": 1e9}"#, #"{"profile": "5g"}"#, #"{"offline": "yes"}"#, "[1]"] {
            #expect(throws: NetworkConditionsError.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test func anAnswerWaitsForTheLatencyTheUploadAndALoss() throws {
        let conditions = try parse(#"{"latencyMs": 100, "downKbps": 800, "upKbps": 80, "lossPercent": 10}"#)
        let kept = conditions.pacing(uploadBytes: 1_000, draw: 50)
        #expect(kept.delay == .milliseconds(100 + 100), "1,000 bytes at 80 kbps take 100 ms")
        #expect(kept.bytesPerSecond == 100_000)
        #expect(conditions.pacing(uploadBytes: 0, draw: 5).delay == .milliseconds(100 + 200), "a lost answer waits for a retransmission")
        #expect(try parse(#"{"latencyMs": 400, "lossPercent": 10}"#).pacing(uploadBytes: 0, draw: 1).delay == .milliseconds(400 + 800))
        #expect(NetworkConditions().pacing(uploadBytes: 10).bytesPerSecond == nil)
    }

    @Test func aScopeCountsOnlyWhileItHasConditions() {
        let scopes = StateScopes()
        let scope = scopes.scope(named: "a")
        #expect(scope.networkConditions == nil)
        scope.networkConditions = NetworkConditions.profiles["edge"]
        #expect(scope.networkConditions?.profile == "edge")
        #expect(scopes.scope(named: "b").networkConditions == nil)
        scopes.delete("a")
        #expect(scope.networkConditions == nil, "a scope that goes takes its network with it")
    }
}
