import Foundation

/// Writes that never leave a half-written file: the bytes go to a temporary name beside the
/// target and are renamed over it (rename replaces atomically).
public enum SafeFile {
    public static func write(_ data: Data, to file: URL) throws {
        try write(to: file) { try data.write(to: $0) }
    }

    /// `fill` writes the whole contents to the temporary file it is given.
    public static func write(to file: URL, _ fill: (URL) throws -> Void) throws {
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        do {
            try fill(temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot write \(file.path): \(reason)"])
        }
    }
}
