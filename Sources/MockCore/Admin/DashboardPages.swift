import Foundation
import HTTPServer

/// The dashboard at `/__admin/ui/`: its HTML, CSS and JavaScript files, read once from the
/// module's resource folder (`Resources/Dashboard`, copied beside the executable by SwiftPM) and
/// served from memory. The pages hold no data: their script reads everything through the admin
/// API, so the pages need no token (the calls they make do) and the guard's other checks apply.
final class DashboardPages: Sendable {
    static let mount = "/__admin/ui"

    static let endpoints: [AdminEndpoint<DashboardPages>] = [
        AdminEndpoint(
            "/__admin/ui", isPublic: true, "the dashboard (redirects to `/__admin/ui/`)", [.get: { pages, call in .response(pages.root(call)) }]),
        AdminEndpoint(
            "/__admin/ui/{file...}", isPublic: true, "the dashboard's files; their calls need the token",
            [.get: { pages, call in .response(pages.file(call.parameters[0])) }]),
    ]

    /// By file name ("index.html"); empty when the files were not installed with the executable.
    private let files: [String: Response]

    init(directory: URL? = DashboardPages.installedDirectory()) {
        files = directory.map(Self.load) ?? [:]
    }

    /// `/__admin/ui/` is the page; `/__admin/ui` redirects there, so the page's relative links resolve.
    private func root(_ call: AdminCall) -> Response {
        if call.request.path.hasSuffix("/") { return file("index.html") }
        var redirect = Response(status: 302)
        redirect.headers.set("Location", call.context.basePath + Self.mount + "/")
        return redirect
    }

    private func file(_ name: String) -> Response {
        if let response = files[name] { return response }
        if files.isEmpty {
            return .text(
                "The dashboard's files were not installed with this executable: copy the folder "
                    + "\(Self.bundleNames[0]) (from the build folder) beside it.\n", status: 404)
        }
        return .text("The dashboard has no file \(name).\n", status: 404)
    }

    private static func load(_ directory: URL) -> [String: Response] {
        var files: [String: Response] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names {
            guard let type = contentTypes[URL(fileURLWithPath: name).pathExtension],
                let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else { continue }
            var response = Response(status: 200, body: ResponseBody(shared: SharedBytes(data)))
            response.headers.set("Content-Type", type)
            response.headers.set("Cache-Control", "no-cache")
            response.headers.set("X-Content-Type-Options", "nosniff")
            // A second line of defence behind the pages' escaping: no inline script, nothing from elsewhere.
            response.headers.set(
                "Content-Security-Policy",
                "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; "
                    + "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
            response.headers.set("Referrer-Policy", "no-referrer")
            files[name] = response
        }
        return files
    }

    private static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
    ]

    /// SwiftPM's resource bundle of this module: a folder on Linux, a bundle on macOS.
    static let bundleNames = ["Understudy_MockCore.resources", "Understudy_MockCore.bundle", "Understudy_MockCore.bundle/Contents/Resources"]

    /// Where the files are: in the module's resource bundle beside the executable (or beside the
    /// test bundle). Looked up by hand rather than through `Bundle.module`, which traps when the
    /// bundle is missing: a server copied without it still serves everything but the dashboard.
    static func installedDirectory() -> URL? {
        var places: [URL] = []
        if let executable = Bundle.main.executableURL { places.append(executable.resolvingSymlinksInPath().deletingLastPathComponent()) }
        places.append(Bundle.main.bundleURL)
        let own = Bundle(for: DashboardPages.self).bundleURL
        places += [own, own.deletingLastPathComponent()]
        for place in places {
            for bundle in bundleNames {
                let folder = place.appendingPathComponent(bundle).appendingPathComponent("Dashboard")
                if FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.html").path) { return folder }
            }
        }
        return nil
    }
}
