import Dispatch
import Foundation
import Logging

/// Hot reload: looks at the stub files (every `mappings/` and `__files/` of the engine) a few
/// times a second and reloads the engine when any was added, removed or changed. Runs on its own
/// queue, never on an event loop. A bad file keeps its last good version (`StubEngine.reloadFiles`).
public final class StubWatcher: Sendable {
    // DispatchSource is thread-safe; it only lacks the annotation.
    nonisolated(unsafe) private let timer: DispatchSourceTimer

    /// Starts watching; stops when `stop()` is called or the watcher is released. `onChange` runs
    /// after each reload (e.g. to reload the static `__files` too); `files` and `folders` are
    /// watched beside the engine's folders (e.g. `hosts.json`, `message-mappings/`).
    public init(
        engine: StubEngine, every interval: Duration = .milliseconds(250), logger: Logger = Logger(label: "understudy"),
        files: [URL] = [], folders: [URL] = [], onChange: @escaping @Sendable () -> Void = {}
    ) {
        let queue = DispatchQueue(label: "understudy.stub-watcher")
        timer = DispatchSource.makeTimerSource(queue: queue)
        nonisolated(unsafe) var last = Self.fingerprint(engine, files, folders)
        let milliseconds = Int(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
        timer.setEventHandler { [weak engine] in
            guard let engine else { return }
            let now = Self.fingerprint(engine, files, folders)
            guard now != last else { return }
            last = now
            let errors = engine.reloadFiles()
            onChange()
            logger.info(
                "stub files changed: \(engine.mappings.count) mappings live\(errors.isEmpty ? "" : ", \(errors.count) problem(s) above; their files keep their last good version")"
            )
        }
        timer.resume()
    }

    public func stop() {
        timer.cancel()
    }

    deinit {
        timer.cancel()
    }

    /// Path, size and modification time of every file that can change what the engine serves.
    static func fingerprint(_ engine: StubEngine, _ files: [URL] = [], _ folders: [URL] = []) -> [String: String] {
        var seen: [String: String] = [:]
        for file in files {
            let values = try? file.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey])
            seen[file.path] = "\(values?.fileSize ?? -1)@\(values?.contentModificationDate?.timeIntervalSince1970 ?? 0)"
        }
        for folder in engine.watchedFolders + folders {
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey])
            while let file = files?.nextObject() as? URL {
                let values = try? file.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey])
                seen[file.path] = "\(values?.fileSize ?? -1)@\(values?.contentModificationDate?.timeIntervalSince1970 ?? 0)"
            }
        }
        return seen
    }
}
