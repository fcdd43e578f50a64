import CLibevent
import HTTPServer

/// Why the local certificate authority could not be loaded, made, or issue a certificate.
public struct LocalCAError: Error, CustomStringConvertible, Sendable {
    /// The file or directory at fault; nil when no file is (a refused host name, an OpenSSL failure).
    public let file: String?
    public let reason: String

    public init(file: String?, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { file.map { "\($0): \(reason)" } ?? reason }
}

/// An OpenSSL call failed: what was being done, and the oldest error on this thread's queue.
struct OpenSSLFailure: Error {
    let reason: String

    /// Takes the queued error and clears the rest: a stale error on an event loop's thread would
    /// otherwise be mistaken for the failure of a later, unrelated SSL read or write there.
    init(_ doing: String) {
        reason = "cannot \(doing): \(TLSContexts.lastError())"
        ERR_clear_error()
    }
}
