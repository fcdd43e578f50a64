import HTTPServer
import JSON

/// A backend that writes the journal in another format (the recorder: HAR, with its redaction),
/// for `GET /__admin/requests?format=NAME`.
public protocol JournalExporter: Backend {
    var exportFormats: [String] { get }
    /// `entries`, oldest first, each with the stub that answers it now (nil: none, or not a stub),
    /// and the WebSocket `sessions` of the same scope, as a document of `format` (one of `exportFormats`).
    func export(_ entries: [(entry: JournalEntry, stub: JSONValue?)], sessions: [ChannelSession], format: String) -> Response
}
