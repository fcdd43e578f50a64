import Foundation
import HTTPServer
import Logging

/// Serves the files under a directory (the stubs' `__files/`) at the root for GET and HEAD, as
/// WireMock does for requests no stub matches. Files are read at start (and again by `reload()`)
/// and kept in memory that libevent writes from directly; a directory answers with its
/// `index.html` or `index.json`. A file without an extension is served as `application/json`, as
/// WireMock serves it.
public final class StaticFiles: Backend {
    public let name = "files"
    public let mounts = ["/"]
    public let tier = BackendTier.fallback
    public let root: URL
    private let logger: Logger
    private let responses: Locked<PathTable<Response>>

    /// Loads every regular file below `root`. A missing directory serves nothing; unreadable
    /// files are logged and skipped.
    public init(root: URL, logger: Logger = Logger(label: "understudy")) {
        self.root = root.standardizedFileURL
        self.logger = logger
        responses = Locked(PathTable([:]))
        reload()
    }

    /// Paths served (a folder's index counts under the folder's path too).
    public var report: BackendReport {
        BackendReport(fixtures: [("paths", responses.withLock { $0.keys.count })])
    }

    /// Reads the files again (hot reload); requests in flight keep the bodies they took.
    /// A folder that cannot be listed, or a file that cannot be read (out of descriptors, say),
    /// keeps what was served before.
    public func reload() {
        let previous = responses.withLock { $0 }
        if FileManager.default.fileExists(atPath: root.path) {
            do {
                _ = try FileManager.default.contentsOfDirectory(atPath: root.path)
            } catch {
                logger.warning("static files not reloaded, those in use stay: cannot list \(root.path): \(error.localizedDescription)")
                return
            }
        }
        let table = PathTable(load(keeping: previous))
        responses.withLock { $0 = table }
    }

    private func load(keeping previous: PathTable<Response>) -> [String: Response] {
        var responses: [String: Response] = [:]
        let rootPath = root.resolvingSymlinksInPath().path
        let keys: [URLResourceKey] = [.isRegularFileKey]
        for case let file as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) ?? .init() {
            guard (try? file.resourceValues(forKeys: Set(keys)))?.isRegularFile == true else { continue }
            let resolved = file.resolvingSymlinksInPath().path
            guard resolved.hasPrefix(rootPath + "/") else {
                logger.warning("skipping \(file.path): it links outside \(rootPath)")
                continue
            }
            let relative = String(file.standardizedFileURL.path.dropFirst(root.path.count))
            do {
                let bytes = try Data(contentsOf: file)
                responses[relative] = Response(
                    status: 200,
                    // As WireMock: a file without an extension is JSON (an API's recorded answer).
                    headers: ["Content-Type": file.pathExtension.isEmpty ? "application/json" : MediaType.forFileExtension(file.pathExtension)],
                    body: ResponseBody(shared: SharedBytes(bytes)))
            } catch {
                responses[relative] = previous[relative]
                logger.warning("cannot read \(file.path): \(error.localizedDescription)")
            }
        }
        return responses
    }

    /// The URL paths served, sorted.
    public var paths: [String] { responses.withLock { $0.keys.sorted() } }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard request.method == .get || request.method == .head else { return .decline }
        return responses.withLock { table in
            if let response = table[request.path] { return .response(response) }
            let directory = request.path.hasSuffix("/") ? request.path : request.path + "/"
            for index in ["index.html", "index.json"] {
                if let response = table[directory + index] { return .response(response) }
            }
            return .decline
        }
    }
}

/// Content types by file extension, for fixture files.
public enum MediaType {
    public static func forFileExtension(_ fileExtension: String) -> String {
        switch fileExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "txt", "text": "text/plain; charset=utf-8"
        case "json": "application/json"
        case "xml": "application/xml"
        case "atom": "application/atom+xml"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "application/javascript"
        case "csv": "text/csv; charset=utf-8"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "svg": "image/svg+xml"
        case "webp": "image/webp"
        case "ico": "image/x-icon"
        case "pdf": "application/pdf"
        case "woff": "font/woff"
        case "woff2": "font/woff2"
        default: "application/octet-stream"
        }
    }
}
