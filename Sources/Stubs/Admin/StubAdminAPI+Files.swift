import Foundation
import HTTPServer
import JSON
import MockCore

/// `/__admin/files`: the body files of `__files/`, listed, read, written and deleted by name
/// (`/__admin/files/users/bob.json`). A name that leads outside `__files/` (`..`, a symbolic
/// link) is refused. Without a scope, writing and deleting change the files every scope shares,
/// on disk; in a named scope they change that scope's own files, held in its memory (gone with
/// its reset), which its mappings read before the shared ones.
extension StubAdminAPI {
    func fileNames(_ scope: StateScope) -> Response {
        let names = Set(Self.names(under: engine.directory.files.root)).union(engine.files(in: scope).keys)
        return .json(JSONValue.array(names.sorted().map(JSONValue.string)).serialized)
    }

    /// `rawName`: the path after `/__admin/files/`, still percent-encoded.
    func file(_ request: Request, _ scope: StateScope, name rawName: String) -> Response {
        let files = engine.directory.files
        guard let name = rawName.removingPercentEncoding, !name.contains("\0"), !name.hasPrefix("/") else {
            return wireMockError(code: 10, "'\(rawName)' is not a file name", status: 400)
        }
        let file: URL
        do throws(StubError) {
            file = try files.path(name, field: "name")
        } catch {
            return wireMockError(code: 10, error.message, status: 400)
        }
        if !scope.isDefault, let answer = scopeFile(request, scope, name: name, shared: file) { return answer }
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

    /// A named scope's own file: read, written or deleted in its memory; nil to read the shared
    /// file (`shared`) when the scope has none of that name.
    private func scopeFile(_ request: Request, _ scope: StateScope, name: String, shared: URL) -> Response? {
        switch request.method {
        case .get, .head:
            guard let own = engine.files(in: scope)[BodyFiles.key(name)] else { return nil }
            var response = Response(status: 200)
            response.headers.set("Content-Type", "application/octet-stream")
            response.body = ResponseBody(shared: own)
            return response
        case .put:
            let kept = engine.ownBytes(in: scope, excluding: []) - (engine.files(in: scope)[BodyFiles.key(name)]?.count ?? 0)
            guard kept + request.body.count <= maxScopeMappingBytes else {
                return wireMockError(
                    code: 413,
                    "the mappings and files of scope \(scope.name) would take \(kept + request.body.count) bytes, past the cap of "
                        + "\(maxScopeMappingBytes) (--max-scope-mapping-bytes): delete some, or put large files without a scope",
                    status: 413)
            }
            engine.setFile(name, to: SharedBytes(request.body), in: scope)
            return .json(JSONValue.string(Data(request.body).base64EncodedString()).serialized)
        case .delete:
            if engine.setFile(name, to: nil, in: scope) { return Response(status: 200) }
            if FileManager.default.fileExists(atPath: shared.path) { return sharedOnly("DELETE /__admin/files", "deletes a file every scope shares") }
            return wireMockError(code: 404, "No file '\(name)' in scope \(scope.name)'s files", status: 404)
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
