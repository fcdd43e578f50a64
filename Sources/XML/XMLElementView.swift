internal import CLibxml2

/// One element of an `XMLTree`; it keeps its tree alive.
public struct XMLElementView {
    let tree: XMLTree
    let node: xmlNodePtr

    init(tree: XMLTree, node: xmlNodePtr!) {
        self.tree = tree
        self.node = node
    }

    /// One child of an element: text (CDATA included) and comments as their content.
    public enum Child {
        case element(XMLElementView)
        case text(String)
        case comment(String)
        case other
    }

    public var localName: String { node.pointee.name.map { String(cString: $0) } ?? "" }

    public var namespaceURI: String? { node.pointee.ns?.pointee.href.map { String(cString: $0) } }

    /// The name as written, `prefix:local` (a prefix no declaration binds stays in `localName`).
    public var qualifiedName: String {
        guard let prefix = node.pointee.ns?.pointee.prefix else { return localName }
        return String(cString: prefix) + ":" + localName
    }

    /// The attributes by the names they are written with (`p:name`), in document order.
    public var qualifiedAttributes: [(name: String, value: String)] {
        var found: [(name: String, value: String)] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            let name = current.pointee.name.map { String(cString: $0) } ?? ""
            let prefix = current.pointee.ns?.pointee.prefix.map { String(cString: $0) + ":" } ?? ""
            found.append((prefix + name, XMLTree.take(xmlNodeListGetString(tree.document, current.pointee.children, 1))))
            attribute = current.pointee.next
        }
        return found
    }

    /// The `xmlns` and `xmlns:p` declarations on this element, as attributes would name them.
    public var namespaceDeclarationAttributes: [(name: String, value: String)] {
        var found: [(name: String, value: String)] = []
        var namespace = node.pointee.nsDef
        while let current = namespace {
            let name = current.pointee.prefix.map { "xmlns:" + String(cString: $0) } ?? "xmlns"
            found.append((name, current.pointee.href.map { String(cString: $0) } ?? ""))
            namespace = current.pointee.next
        }
        return found
    }

    /// The attributes in document order, their entity and character references resolved.
    public var attributes: [(name: String, namespaceURI: String?, value: String)] {
        var found: [(name: String, namespaceURI: String?, value: String)] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            let name = current.pointee.name.map { String(cString: $0) } ?? ""
            let uri = current.pointee.ns?.pointee.href.map { String(cString: $0) }
            let value = XMLTree.take(xmlNodeListGetString(tree.document, current.pointee.children, 1))
            found.append((name, uri, value))
            attribute = current.pointee.next
        }
        return found
    }

    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name && $0.namespaceURI == nil }?.value
    }

    public var children: [Child] {
        var found: [Child] = []
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE: found.append(.element(XMLElementView(tree: tree, node: current)))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: found.append(.text(current.pointee.content.map { String(cString: $0) } ?? ""))
            case XML_COMMENT_NODE: found.append(.comment(current.pointee.content.map { String(cString: $0) } ?? ""))
            default: found.append(.other)
            }
            child = current.pointee.next
        }
        return found
    }

    /// All the text inside the element, markup left out.
    public var text: String { XMLTree.take(xmlNodeGetContent(node)) }

    /// Prefixes this element declares (`xmlns:p="…"`); the default namespace has no prefix for XPath.
    var namespaceDeclarations: [String: String] {
        var found: [String: String] = [:]
        var namespace = node.pointee.nsDef
        while let current = namespace {
            if let prefix = current.pointee.prefix, let href = current.pointee.href {
                found[String(cString: prefix)] = String(cString: href)
            }
            namespace = current.pointee.next
        }
        return found
    }
}
