import JSON
import Stubs

/// JSON Pointers (`#/paths/~1pets/get`) into a document, and `$ref`s followed.
public enum SpecPointer {
    public static func node(at pointer: String, in document: JSONValue) -> JSONValue? {
        JSONSchema.node(at: pointer, in: document)
    }

    /// `node` (at `pointer`) or, when it is a `$ref`, what it leads to (through at most 32
    /// references), with where that is.
    public static func resolved(_ node: JSONValue, at pointer: String, in document: JSONValue) -> (JSONValue, String)? {
        var (node, pointer) = (node, pointer)
        for _ in 0..<32 {
            guard let ref = node["$ref"]?.stringValue else { return (node, pointer) }
            guard let target = self.node(at: ref, in: document) else { return nil }
            (node, pointer) = (target, ref)
        }
        return nil
    }
}

/// Walks a document's objects.
public enum SpecWalk {
    public static func visitObjects(_ node: JSONValue, at pointer: String, _ visit: (JSONValue, String) -> Void) {
        switch node {
        case .object(let members):
            visit(node, pointer)
            for (key, value) in members { visitObjects(value, at: pointer + "/" + JSONPointer.escaped(key), visit) }
        case .array(let items):
            for (index, item) in items.enumerated() { visitObjects(item, at: "\(pointer)/\(index)", visit) }
        default:
            return
        }
    }
}
