import Foundation

/// A simulated network for a scope's answers: a profile of Apple's Network Link Conditioner, or
/// figures of one's own.
public struct NetworkConditions: Sendable, Hashable {
    public enum Profile: String, Sendable, CaseIterable {
        case wifi, lte
        case threeG = "3g"
        case edge
        case veryBad = "very-bad"
        case offline
    }

    /// The profile the figures come from, if they do.
    public var profile: Profile?
    public var latencyMs: Int
    public var downKbps: Int?
    public var upKbps: Int?
    public var lossPercent: Double
    /// Connections are closed without an answer ("network connection lost"); tunnels are refused.
    public var offline: Bool

    public init(latencyMs: Int = 0, downKbps: Int? = nil, upKbps: Int? = nil, lossPercent: Double = 0, offline: Bool = false) {
        (self.latencyMs, self.downKbps, self.upKbps, self.lossPercent, self.offline) = (latencyMs, downKbps, upKbps, lossPercent, offline)
    }

    /// As `init(latencyMs:…)`, with the latency a `Duration`, as the stub builders' delays are.
    public init(latency: Duration, downKbps: Int? = nil, upKbps: Int? = nil, lossPercent: Double = 0, offline: Bool = false) {
        self.init(latencyMs: Int(latency / .milliseconds(1)), downKbps: downKbps, upKbps: upKbps, lossPercent: lossPercent, offline: offline)
    }

    /// `latencyMs` as a `Duration`.
    public var latency: Duration {
        get { .milliseconds(latencyMs) }
        set { latencyMs = Int(newValue / .milliseconds(1)) }
    }

    public static func profile(_ profile: Profile) -> NetworkConditions {
        var conditions = NetworkConditions()
        conditions.profile = profile
        return conditions
    }

    public static let offline = NetworkConditions.profile(.offline)

    init(_ json: JSONValue) {
        self.init(
            latencyMs: json["latencyMs"]?.intValue ?? 0, downKbps: json["downKbps"]?.intValue, upKbps: json["upKbps"]?.intValue,
            offline: json["offline"] == .bool(true))
        switch json["lossPercent"] {
        case .int(let value)?: lossPercent = Double(value)
        case .double(let value)?: lossPercent = value
        default: break
        }
        profile = json["profile"]?.stringValue.flatMap { Profile(rawValue: $0) ?? ($0 == "100-loss" ? .offline : nil) }
    }

    var json: JSONValue {
        if let profile { return ["profile": .string(profile.rawValue)] }
        var object: [String: JSONValue] = ["latencyMs": .int(latencyMs), "lossPercent": .double(lossPercent), "offline": .bool(offline)]
        if let downKbps { object["downKbps"] = .int(downKbps) }
        if let upKbps { object["upKbps"] = .int(upKbps) }
        return .object(object)
    }
}
