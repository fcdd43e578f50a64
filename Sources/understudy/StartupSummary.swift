import Foundation
import MockCore

/// What `serve` prints under its `listening on` line once every backend has loaded: the
/// dashboard's address, then each backend with what it loaded, aligned.
///
///     dashboard   http://127.0.0.1:8080/__admin/ui/
///     stubs       16 mappings
///     geocoder    53263 postal codes, 61060 towns, 71 regions, 244 countries  (/maps/api/geocode)
enum StartupSummary {
    static func text(baseURL: String, backends: [any Backend]) -> String {
        var rows: [(String, String)] = [("dashboard", baseURL + "/__admin/ui/")]
        for backend in backends where backend.tier != .admin {
            let report = backend.report
            var what = report.fixtureSummary
            if let recorder = report.recorder { what = recorder.isRecording ? "recording" : "not recording" }
            if backend.tier == .emulator {
                let shown = backend.mounts.prefix(3).joined(separator: " ")
                what += "  (" + shown + (backend.mounts.count > 3 ? " …" : "") + ")"
            }
            rows.append((backend.name, what.isEmpty ? "ready" : what))
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { name, what in "  " + name + String(repeating: " ", count: width - name.count + 2) + what }.joined(separator: "\n") + "\n"
    }

    /// Prints the summary on standard output from a thread of its own once every backend is ready
    /// (emulators load in the background), or after `patience` with what has loaded by then.
    static func printWhenReady(baseURL: String, backends: [any Backend], patience: Duration = .seconds(120)) {
        Thread.detachNewThread {
            let deadline = ContinuousClock.now + patience
            while !backends.allSatisfy(\.isReady) && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
            FileHandle.standardOutput.write(Data(text(baseURL: baseURL, backends: backends).utf8))
        }
    }
}
