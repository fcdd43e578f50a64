import Foundation
import JSON
import Logging

/// An emulator's settings: its folder's `config.json`, every key optional. One loader reads every
/// emulator's, so a problem reads alike for all (the file and the field) and the defaults stand
/// when the file is absent.
public protocol EmulatorSettings: Sendable {
    /// The defaults.
    init()

    /// Changes the defaults by what `json`, the file's object, gives; a problem names `file` and
    /// the field.
    mutating func read(_ json: JSONValue, in file: URL) throws(FixtureError)
}

extension EmulatorSettings {
    /// The settings `file` gives; the defaults when it is absent.
    public init(file: URL) throws(FixtureError) {
        self.init()
        guard let json = try FixtureError.configuration(at: file) else { return }
        try read(json, in: file)
    }

    /// The settings of `directory`'s `config.json`, and the problem that kept them at the defaults.
    public static func read(from directory: URL) -> (settings: Self, problem: FixtureError?) {
        do {
            return (try Self(file: directory.appendingPathComponent("config.json")), nil)
        } catch {
            return (Self(), error)
        }
    }

    /// The settings of `directory`'s `config.json`; a problem is logged as the `emulator`'s, and
    /// the defaults serve.
    public static func load(from directory: URL, emulator: String, logger: Logger) -> Self {
        let (settings, problem) = read(from: directory)
        if let problem { logger.warning("\(emulator): \(problem)") }
        return settings
    }

    /// The problem with `directory`'s `config.json`, for `understudy check`.
    public static func problems(in directory: URL) -> [FixtureError] {
        read(from: directory).problem.map { [$0] } ?? []
    }

    /// Where the emulator is mounted, which every `config.json` calls `mounts`; an older file may
    /// give it as `formerly` (not both).
    public static func mounts(in json: JSONValue, formerly: String, file: URL) throws(FixtureError) -> JSONValue? {
        switch (json["mounts"], json[formerly]) {
        case (let value?, nil), (nil, let value?): return value
        case (nil, nil): return nil
        case (_?, _?): throw .field(file, formerly, "is the older name of mounts: give one of them")
        }
    }

    /// `mounts` as a list of paths (`mountPath`); an empty list only when `allowingNone`.
    public static func mountPaths(_ value: JSONValue, file: URL, allowingNone: Bool = false) throws(FixtureError) -> [String] {
        guard let items = value.arrayValue, allowingNone || !items.isEmpty else {
            throw .field(file, "mounts", allowingNone ? "must be a list of paths" : "must be a list of one path or more")
        }
        var paths: [String] = []
        for (index, item) in items.enumerated() {
            let path = try mountPath(item, field: "mounts[\(index)]", file: file)
            guard !paths.contains(path) else { throw .field(file, "mounts[\(index)]", "\(path) is listed twice") }
            paths.append(path)
        }
        return paths
    }

    /// One mount: a path that starts with `/` and does not end with one (a mount covers what is
    /// under it), with no query, fragment or space, outside the admin API. Every emulator's mounts
    /// are checked here, alike.
    public static func mountPath(_ value: JSONValue, field: String, file: URL) throws(FixtureError) -> String {
        guard let path = value.stringValue else { throw .field(file, field, "must be a path such as \"/api\"") }
        guard path.hasPrefix("/"), path.count > 1, !path.hasSuffix("/") else {
            throw .field(file, field, "\(path) must start with / and not end with one")
        }
        guard !path.contains(where: { $0 == "?" || $0 == "#" || $0.isWhitespace }) else {
            throw .field(file, field, "\(path) must be a path alone: no query, fragment or space")
        }
        guard path != "/__admin" && !path.hasPrefix("/__admin/") else { throw .field(file, field, "\(path) is the admin API's") }
        return path
    }
}
