import Foundation
import HTTPServer
import JSON
import MockCore

/// `/__admin/files`: the body files of `__files/`, listed, read, written and deleted by name
/// (`/__admin/files/users/bob.json`). A name that leads outside `__files/` (`..`, a symbolic
/// link) is refused. Writing and deleting change files every scope shares: without a scope only.
extension StubAdminAPI {
    func fileNames() -> Response {
        .json(JSONValue.array(Self.names(under: engine.directory.files.root).map(JSONValue.string)).serialized)
    }

    /// `rawName`: the path after `/__admin/files/`, still percent-encoded.
    func file(_ request: Request, _ scope: StateScope, name rawName: String) -> Response {
        let files = engine.directory.files
        guard let name = rawName.removingPercentEncoding, !name.contains("\0"), !name.hasPrefix("/") else {
            return wireMockError(code: 10, "'\(rawName)' is not a file name", status: 400)
        }
        if request.method != .get && request.method != .head && !scope.isDefault {
            return sharedOnly("\(request.method.rawValue) /__admin/files", "changes files every scope shares")
        }
        let file: URL
        do throws(StubError) {
            file = try files.path(name, field: "name")
        } catch {
            return wireMockError(code: 10, error.message, status: 400)
        }
        switch request.method {
        case .get, .head:
            guard let data = FileManager.default.contents(atPath: file.path), !Self.isFolder(file) else { return noFile(name, in: files) }
            var response = Response(status: 200)
            response.headers.set("Content-Type", "application/octet-stream")
            response.body = ResponseBody(shared: SharedBytes(data))
            return response
        case .put:
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try SafeFile.write(Data(request.body), to: file)
            } catch {
                return .text("Could not write '\(name)' in \(files.shownAs): \(MappingFiles.reason(error))\n", status: 500)
            }
            engine.refreshBodies(of: name)
            // WireMock answers with what it wrote, as a base64 JSON string.
            return .json(JSONValue.string(Data(request.body).base64EncodedString()).serialized)
        case .delete:
            guard FileManager.default.fileExists(atPath: file.path), !Self.isFolder(file) else { return noFile(name, in: files) }
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                return .text("Could not delete '\(name)' in \(files.shownAs): \(MappingFiles.reason(error))\n", status: 500)
            }
            engine.refreshBodies(of: name)
            return Response(status: 200)
        default:
            return Response(status: 405)
        }
    }

    private func noFile(_ name: String, in files: BodyFiles) -> Response {
        wireMockError(code: 404, "No file '\(name)' in \(files.shownAs)", status: 404)
    }

    private static func isFolder(_ file: URL) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: file.path, isDirectory: &folder) && folder.boolValue
    }

    /// Every file below `root`, by its name relative to `root`, in order.
    private static func names(under root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var names: [String] = []
        let prefix = root.path + "/"
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            if path.hasPrefix(prefix) { names.append(String(path.dropFirst(prefix.count))) }
        }
        return names.sorted()
    }
}
