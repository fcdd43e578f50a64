import Foundation
import HTTPServer
import JSON
import MockCore
import WireFormat

/// A recording on disk, written as exchanges come: `DIR/mappings/<name>.json` and the body files
/// they name in `DIR/__files/`. Every file is written whole under a temporary name and renamed,
/// a body file before the mapping that names it, so a recording is never half-written. The same
/// call answered differently again becomes a scenario that replays the answers in order.
public final class RecordingStore: Sendable {
    public let directory: URL
    private let recipe: MappingRecipe

    /// The answers each call got, in the order calls first came.
    private struct Calls {
        var order: [String] = []
        var byKey: [String: Call] = [:]
    }

    private struct Call {
        var name: String
        var answers: [UInt64] = []
        var exchanges: [RecordedExchange] = []
    }

    private let calls = Locked(Calls())
    /// Held through a whole `record`, so files are written in the order answers come, while
    /// `calls` is held only to read and update the table (`hasRecorded` runs on event loops).
    private let writing = Locked(())

    public init(directory: URL, options: RecordingOptions) {
        self.directory = directory
        recipe = MappingRecipe(options: options)
    }

    public var options: RecordingOptions { recipe.options }

    /// Whether `exchange` would add nothing: its call already got this answer (or, without
    /// scenarios, any answer). Cheap enough for an event loop; false for a body in a file, whose
    /// answer is not read here.
    public func hasRecorded(_ exchange: RecordedExchange) -> Bool {
        guard exchange.responseFile == nil else { return false }
        let key = recipe.key(exchange)
        guard let answers = calls.withLock({ $0.byKey[key]?.answers }) else { return false }
        return !recipe.options.repeatsAsScenarios || answers.contains(Self.fingerprint(exchange))
    }

    /// Saves a WebSocket session as a file of message mappings, `message-mappings/websocket-<path>-N.json`
    /// (N the first free number); returns the file's name.
    @discardableResult
    public func record(_ channel: RecordedChannel) throws -> String {
        try writing.withLock { _ in
            let folder = directory.appendingPathComponent("message-mappings")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let stem = "websocket" + channel.path.map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
            var number = 1
            while FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(stem)-\(number).json").path) { number += 1 }
            let name = "\(stem)-\(number).json"
            try SafeFile.write(
                Data(JSONValue.object([("messageMappings", .array(channel.mappings()))]).serialized.utf8), to: folder.appendingPathComponent(name))
            return name
        }
    }

    /// Saves `exchange`; returns the names of the mappings written (none when the call already
    /// has this answer).
    @discardableResult
    public func record(_ exchange: RecordedExchange) throws -> [String] {
        let key = recipe.key(exchange)
        let answer = Self.fingerprint(exchange)
        return try writing.withLock { _ in
            guard
                var call = calls.withLock({ calls -> Call? in
                    let call = calls.byKey[key] ?? Call(name: recipe.name(exchange, key: key))
                    if call.answers.contains(answer) || (!call.answers.isEmpty && !recipe.options.repeatsAsScenarios) { return nil }
                    return call
                })
            else { return [] }
            call.answers.append(answer)
            call.exchanges.append(Self.decodingFile(exchange))
            // A second answer turns the call into a scenario; each new step rewrites the one
            // before it, which now moves the scenario on.
            let count = call.exchanges.count
            let steps = count == 1 ? [0] : [count - 2, count - 1]
            var written: [String] = []
            for step in steps {
                let recorded = recorded(call, step: step)
                try write(recorded)
                written.append(recorded.mapping.first { $0.0 == "name" }?.1.stringValue ?? "")
                // A large body is read from the recording from now on: its temporary file, the
                // size of the answer, goes.
                if let body = recorded.bodyFile, let file = body.content.file {
                    call.exchanges[step].responseFile = FileBody(path: bodyFiles.appendingPathComponent(body.name).path, count: file.count)
                }
            }
            calls.withLock { calls in
                if calls.byKey[key] == nil { calls.order.append(key) }
                calls.byKey[key] = call
            }
            return written
        }
    }

    /// How many exchanges have been recorded so far.
    public var exchangeCount: Int {
        calls.withLock { $0.byKey.values.reduce(0) { $0 + $1.exchanges.count } }
    }

    /// Every mapping recorded so far, as written.
    public var mappings: [JSONValue] {
        let calls = calls.withLock { $0 }
        return calls.order.flatMap { key -> [JSONValue] in
            guard let call = calls.byKey[key] else { return [] }
            return call.exchanges.indices.map { .object(recorded(call, step: $0).mapping) }
        }
    }

    private func recorded(_ call: Call, step: Int) -> MappingRecipe.Recorded {
        let count = call.exchanges.count
        let name = step == 0 ? call.name : "\(call.name)-\(step + 1)"
        let scenario =
            count < 2
            ? nil
            : (
                name: call.name, required: step == 0 ? "Started" : "step-\(step + 1)",
                next: step == count - 1 ? nil as String? : "step-\(step + 2)"
            )
        return recipe.mapping(call.exchanges[step], name: name, scenario: scenario)
    }

    /// A compressed body in a file decoded once, here, into another file (as `MappingRecipe`
    /// decodes bodies in memory), so the mapping and its snapshots need not decode it again.
    private static func decodingFile(_ exchange: RecordedExchange) -> RecordedExchange {
        guard let file = exchange.responseFile, let encoding = exchange.responseHeaders["Content-Encoding"],
            let decoded = ContentDecoding.decode(file, encoding: encoding, directory: OutboundRequest.temporaryDirectory)
        else { return exchange }
        var plain = exchange
        plain.responseFile = decoded
        plain.responseHeaders.remove("Content-Encoding")
        return plain
    }

    private var bodyFiles: URL { directory.appendingPathComponent("__files") }

    private func write(_ recorded: MappingRecipe.Recorded) throws {
        let mappings = directory.appendingPathComponent("mappings")
        let files = bodyFiles
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        if let body = recorded.bodyFile {
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            let target = files.appendingPathComponent(body.name)
            if let file = body.content.file {
                try SafeFile.write(to: target) { temporary in
                    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot create \(temporary.path)"])
                    }
                    let handle = try FileHandle(forWritingTo: temporary)
                    defer { try? handle.close() }
                    try file.forEachChunk { try handle.write(contentsOf: $0) }
                }
            } else {
                try SafeFile.write(Data(body.content.bytes), to: target)
            }
        }
        let name = recorded.mapping.first { $0.0 == "name" }?.1.stringValue ?? "mapping"
        let json = JSONValue.object(recorded.mapping).prettyPrinted() + "\n"
        try SafeFile.write(Data(json.utf8), to: mappings.appendingPathComponent(name + ".json"))
    }

    /// Headers that change between identical answers.
    private static let volatileHeaders = ["Date", "Set-Cookie", "Expires", "Age"]

    /// Tells answers apart: status, the headers kept, and the body (hashed in place: this runs
    /// on the event loop for every proxied request).
    private static func fingerprint(_ exchange: RecordedExchange) -> UInt64 {
        var hash = FNV1a.hash(CollectionOfOne(UInt8(truncatingIfNeeded: exchange.status)))
        hash = FNV1a.hash(CollectionOfOne(UInt8(truncatingIfNeeded: exchange.status >> 8)), seed: hash)
        for field in exchange.responseHeaders.fields where !volatileHeaders.contains(where: { HTTPHeaders.namesEqual($0, field.name) }) {
            // Names case-folded (ASCII), each part ended by a byte no header holds.
            hash = FNV1a.hash(field.name.utf8.lazy.map { $0 | 0x20 }, seed: hash)
            hash = FNV1a.hash(CollectionOfOne(0), seed: hash)
            hash = FNV1a.hash(field.value.utf8, seed: hash)
            hash = FNV1a.hash(CollectionOfOne(0), seed: hash)
        }
        guard let file = exchange.responseFile else { return FNV1a.hash(exchange.responseBody, seed: hash) }
        file.forEachChunk { hash = FNV1a.hash($0, seed: hash) }
        return hash
    }
}
