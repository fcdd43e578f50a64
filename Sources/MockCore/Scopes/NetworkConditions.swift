import HTTPServer
import JSON

/// A simulated network for one state scope: what its answers go through, so a test sees its app
/// on 3G or offline while other scopes answer at once. Latency delays each answer (a timer), the
/// down rate limits the connection's writes (libevent's rate limit), the up rate delays the answer
/// by the time the request's body would have taken, loss adds a retransmission's wait to that
/// share of answers, and offline closes the connection without an answer (and refuses tunnels).
/// Admin calls are never slowed.
public struct NetworkConditions: Sendable, Equatable {
    public var latencyMs = 0
    /// nil: not limited.
    public var downKbps: Int?
    public var upKbps: Int?
    public var lossPercent = 0.0
    public var offline = false
    /// The preset these came from, when they did.
    public var profile: String?

    public init() {}

    /// Apple's Network Link Conditioner presets (its preference pane's figures; one way each,
    /// the downlink's delay taken as the latency): Wi-Fi 40/33 Mbps, 1 ms; LTE 50/10 Mbps, 50 ms;
    /// 3G 780/330 kbps, 100 ms; Edge 240/200 kbps, 400 ms; Very Bad Network 1/1 Mbps, 500 ms, 10%
    /// loss; 100% Loss. Not checked against a running conditioner here.
    public static let profiles: [String: NetworkConditions] = [
        "wifi": .preset("wifi", latency: 1, down: 40_000, up: 33_000),
        "lte": .preset("lte", latency: 50, down: 50_000, up: 10_000),
        "3g": .preset("3g", latency: 100, down: 780, up: 330),
        "edge": .preset("edge", latency: 400, down: 240, up: 200),
        "very-bad": .preset("very-bad", latency: 500, down: 1_000, up: 1_000, loss: 10),
        "100-loss": .preset("100-loss", offline: true),
        "offline": .preset("offline", offline: true),
    ]

    private static func preset(
        _ name: String, latency: Int = 0, down: Int? = nil, up: Int? = nil, loss: Double = 0,
        offline: Bool = false
    ) -> NetworkConditions {
        var conditions = NetworkConditions()
        (conditions.latencyMs, conditions.downKbps, conditions.upKbps, conditions.lossPercent) = (latency, down, up, loss)
        conditions.offline = offline
        conditions.profile = name
        return conditions
    }

    static let maxLatencyMs = 60_000
    static let kbpsRange = 1...10_000_000

    /// What `parse` takes, as a JSON Schema (the admin route's input).
    public static let schema = InputSchema.object(
        "A simulated network: a profile, or figures",
        [
            ("profile", InputSchema.string("Apple's Network Link Conditioner presets", oneOf: profiles.keys.sorted())),
            ("latencyMs", InputSchema.integer("delay before each answer", minimum: 0, maximum: maxLatencyMs)),
            ("downKbps", InputSchema.integer("download bandwidth", minimum: kbpsRange.lowerBound, maximum: kbpsRange.upperBound)),
            ("upKbps", InputSchema.integer("upload bandwidth", minimum: kbpsRange.lowerBound, maximum: kbpsRange.upperBound)),
            ("lossPercent", InputSchema.number("share of connections broken", minimum: 0, maximum: 100)),
            ("offline", InputSchema.boolean("no request arrives: connections close unanswered")),
        ], closed: true)

    /// `{"profile": "3g"}`, or `{"latencyMs", "downKbps", "upKbps", "lossPercent", "offline"}`.
    public static func parse(_ json: JSONValue) throws(NetworkConditionsError) -> NetworkConditions {
        guard let members = json.objectValue else {
            throw NetworkConditionsError("expected {\"profile\": \"3g\"} or {\"latencyMs\": 300, \"downKbps\": 780, …}")
        }
        let known: Set<String> = ["profile", "latencyMs", "downKbps", "upKbps", "lossPercent", "offline"]
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw NetworkConditionsError("unknown field '\(unknown.0)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        if let name = json["profile"] {
            guard members.count == 1 else { throw NetworkConditionsError("give a profile or figures, not both") }
            guard let text = name.stringValue, let preset = profiles[text.lowercased()] else {
                throw NetworkConditionsError("unknown profile \(name.serialized) (known: \(profiles.keys.sorted().joined(separator: ", ")))")
            }
            return preset
        }
        var conditions = NetworkConditions()
        if let value = json["latencyMs"] {
            guard let ms = value.intValue, (0...maxLatencyMs).contains(ms) else {
                throw NetworkConditionsError("latencyMs must be a whole number of milliseconds from 0 to \(maxLatencyMs)")
            }
            conditions.latencyMs = ms
        }
        for (field, path) in [("downKbps", \NetworkConditions.downKbps), ("upKbps", \NetworkConditions.upKbps)] {
            guard let value = json[field], value != .null else { continue }
            guard let kbps = value.intValue, kbpsRange.contains(kbps) else {
                throw NetworkConditionsError(
                    "\(field) must be a whole number of kilobits per second from 1 to \(kbpsRange.upperBound) "
                        + "(a network that delivers nothing is \"offline\": true)")
            }
            conditions[keyPath: path] = kbps
        }
        if let value = json["lossPercent"] {
            guard let percent = value.doubleValue, (0...100).contains(percent) else {
                throw NetworkConditionsError("lossPercent must be from 0 to 100")
            }
            conditions.lossPercent = percent
        }
        if let value = json["offline"] {
            guard let flag = value.boolValue else { throw NetworkConditionsError("offline must be true or false") }
            conditions.offline = flag
        }
        if conditions.lossPercent == 100 { conditions.offline = true }
        return conditions
    }

    public var json: JSONValue {
        .object(
            [
                ("latencyMs", .int(latencyMs)), ("downKbps", downKbps.map(JSONValue.int) ?? .null), ("upKbps", upKbps.map(JSONValue.int) ?? .null),
                ("lossPercent", .double(lossPercent)), ("offline", .bool(offline)),
            ] + (profile.map { [("profile", JSONValue.string($0))] } ?? []))
    }

    /// How an answer to a request with `uploadBytes` of body travels: after the latency, the
    /// upload's time, and (for the lost share, drawn with `draw` in 0..<100) a retransmission's
    /// wait — the larger of 200 ms, TCP's least, and twice the latency.
    public func pacing(uploadBytes: Int, draw: Double = Double.random(in: 0..<100)) -> Pacing {
        var millis = latencyMs
        if let upKbps, uploadBytes > 0 { millis += uploadBytes * 8 / upKbps }
        if lossPercent > 0, draw < lossPercent { millis += max(200, 2 * latencyMs) }
        return Pacing(delay: .milliseconds(millis), bytesPerSecond: downKbps.map { $0 * 1000 / 8 })
    }
}

public struct NetworkConditionsError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
