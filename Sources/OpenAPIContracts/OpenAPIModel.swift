import ContractValidation
import Foundation
import JSON
import OpenAPIKit
import OpenAPIKit30

/// The document read by OpenAPIKit, the OpenAPI 3.0 or 3.1 model: what does not decode as one
/// is refused, with the line and pointer of the part that does not. (The operations are then
/// read from the JSON tree, which keeps every schema keyword and recursive schemas; OpenAPIKit's
/// dereferencing refuses recursion and its schema model drops keywords it does not know.)
enum OpenAPIModel {
    static func check(_ document: SpecDocument) throws(SpecError) {
        let version = document.version
        guard version.hasPrefix("3.0.") || version.hasPrefix("3.1.") else {
            let what = version.hasPrefix("2.") ? "Swagger \(version) is not read: convert it to OpenAPI 3 first" : "OpenAPI \(version) is not read"
            throw document.error(at: "#/\(document.json["openapi"] == nil ? "swagger" : "openapi")", what + " (3.0.x and 3.1.x are)")
        }
        // OpenAPIKit does not know the files carried in: it reads the document without them.
        var members = document.json.objectValue ?? []
        members.removeAll { $0.0 == SpecDocument.filesKey }
        let data = Data(JSONValue.object(members).serialized.utf8)
        do {
            if version.hasPrefix("3.0.") {
                _ = try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: data)
            } else {
                _ = try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: data)
            }
        } catch {
            let failure = OpenAPIKit.OpenAPI.Error(from: error)
            let pointer = "#" + failure.codingPath.map { "/" + JSONPointer.escaped($0.intValue.map(String.init) ?? $0.stringValue) }.joined()
            throw document.error(at: pointer, "not a valid OpenAPI \(version) document: \(failure.localizedDescription)")
        }
    }
}
