internal import CLibxml2
import WorkLimits

/// A document parsed from untrusted bytes with libxml2: no network, no external DTDs or entities
/// (documents that declare entities are refused), libxml2's depth and text-size limits, and the
/// screen of `XMLLimits`. Invalid input is a thrown `XMLReadError`, never a trap. Not thread-safe:
/// use one tree on one thread (libxml2 itself may be used from many threads at once).
public final class XMLTree {
    let document: xmlDocPtr
    /// Whether some element or attribute uses a prefix no `xmlns:` declaration binds (libxml2
    /// keeps such a name whole, `tns:id`, with no namespace).
    public private(set) var hasUnboundPrefixes = false

    private init(document: xmlDocPtr) {
        self.document = document
    }

    deinit { xmlFreeDoc(document) }

    /// libxml2's one-time set-up, and the loader that refuses every external resource for this
    /// process (FoundationXML shares the library).
    private static let prepared: Void = {
        xmlInitParser()
        understudy_xml_refuse_external_resources()
    }()

    private static let options = Int32(
        bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
            | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_NOXINCNODE.rawValue)

    /// Text is characters already: its own encoding declaration is not applied to them (as Java
    /// reads a document from a `String`, which WireMock's XML matchers and helpers do).
    public static func parse(_ text: String, limits: XMLLimits = .standard) throws(XMLReadError) -> XMLTree {
        try parse(Array(text.utf8), encoding: "UTF-8", limits: limits)
    }

    /// Bytes are read in the encoding their declaration names (UTF-8 without one).
    public static func parse(_ bytes: [UInt8], limits: XMLLimits = .standard) throws(XMLReadError) -> XMLTree {
        try parse(bytes, encoding: nil, limits: limits)
    }

    private static func parse(_ bytes: [UInt8], encoding: String?, limits: XMLLimits) throws(XMLReadError) -> XMLTree {
        // A step of the request's budget for each KiB read (see JSON's parser).
        guard RequestBudget.spend(1 + bytes.count >> 10, in: "reading XML") else {
            throw XMLReadError("not read: the request's work budget (\(RequestBudget.limitDescription)) ran out")
        }
        _ = prepared
        understudy_xml_silence_errors()
        let result: Result<XMLTree, XMLReadError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(XMLReadError) {
                try XMLScreen.check(buffer, limits: limits)
                return .success(try read(buffer, encoding: encoding))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func read(_ buffer: UnsafeBufferPointer<UInt8>, encoding: String?) throws(XMLReadError) -> XMLTree {
        guard let base = buffer.baseAddress, let size = Int32(exactly: buffer.count),
            let context = xmlNewParserCtxt()
        else { throw XMLReadError("the document could not be read") }
        defer { xmlFreeParserCtxt(context) }
        let parsed = base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            xmlCtxtReadMemory(context, $0, size, nil, encoding, options)
        }
        guard let document = parsed, context.pointee.wellFormed != 0 else {
            if let parsed { xmlFreeDoc(parsed) }
            throw lastError(of: context)
        }
        let tree = XMLTree(document: document)
        tree.hasUnboundPrefixes = context.pointee.nsWellFormed == 0
        if let subset = document.pointee.intSubset, subset.pointee.entities != nil || subset.pointee.pentities != nil {
            throw XMLReadError("entity declarations are not accepted")
        }
        guard xmlDocGetRootElement(document) != nil else { throw XMLReadError("the document has no root element") }
        return tree
    }

    private static func lastError(of context: xmlParserCtxtPtr) -> XMLReadError {
        guard let error = xmlCtxtGetLastError(context), let message = error.pointee.message else {
            return XMLReadError("not well-formed XML")
        }
        let text = String(cString: message).trimmingTrailingWhitespace()
        return XMLReadError(text, line: error.pointee.line > 0 ? Int(error.pointee.line) : nil)
    }

    /// Whether `expression` compiles as XPath 1.0.
    public func isValidXPath(_ expression: String) -> Bool {
        understudy_xml_silence_errors()
        guard let compiled = xmlXPathCompile(expression) else { return false }
        xmlXPathFreeCompExpr(compiled)
        return true
    }

    /// Takes every element and attribute out of its namespace, so that names match by their
    /// local part (`/getPrice/item` finds `<m:getPrice><m:item>`), as WireMock's template XPath
    /// helpers match. Changes this tree.
    public func forgetNamespaces() {
        var stack: [xmlNodePtr] = [xmlDocGetRootElement(document)].compactMap { $0 }
        while let node = stack.popLast() {
            node.pointee.ns = nil
            var attribute = node.pointee.properties
            while let current = attribute {
                current.pointee.ns = nil
                attribute = current.pointee.next
            }
            var child = node.pointee.children
            while let current = child {
                if current.pointee.type == XML_ELEMENT_NODE { stack.append(current) }
                child = current.pointee.next
            }
        }
    }

    /// The document's root element (a parsed tree always has one).
    public var root: XMLElementView {
        // Checked non-nil when the tree was made.
        XMLElementView(tree: self, node: xmlDocGetRootElement(document))
    }

    /// The steps one XPath evaluation may take (libxml2's count: about 50 ms of work).
    public static let xPathStepLimit: UInt = 5_000_000

    /// The string values of what `expression` selects: each node's text for a node set, the value
    /// of a string or number, `["true"]` or `[]` for a boolean. Prefixes declared on the root
    /// element can be used as written; `namespaces` adds or overrides prefixes.
    public func evaluate(xPath expression: String, namespaces: [String: String] = [:]) throws(XMLReadError) -> [String] {
        understudy_xml_silence_errors()
        guard isValidXPath(expression) else { throw XMLReadError("'\(expression)' is not a valid XPath") }
        guard let context = xmlXPathNewContext(document) else { throw XMLReadError("XPath could not be evaluated") }
        defer { xmlXPathFreeContext(context) }
        // An expression such as `//*[. = //*]` compares every pair of nodes: libxml2 counts its
        // steps and gives up past the limit, so no XPath holds an event loop.
        context.pointee.opLimit = Self.xPathStepLimit
        var declared = root.namespaceDeclarations
        for (prefix, uri) in namespaces { declared[prefix] = uri }
        for (prefix, uri) in declared { _ = xmlXPathRegisterNs(context, prefix, uri) }
        guard let result = xmlXPathEvalExpression(expression, context) else {
            if context.pointee.opCount >= Self.xPathStepLimit {
                throw XMLReadError("'\(expression)' takes more than \(Self.xPathStepLimit) steps on this document")
            }
            throw XMLReadError("'\(expression)' is not a valid XPath here")
        }
        defer { xmlXPathFreeObject(result) }
        switch result.pointee.type {
        case XPATH_NODESET:
            guard let set = result.pointee.nodesetval, let nodes = set.pointee.nodeTab else { return [] }
            return (0..<Int(set.pointee.nodeNr)).map { XMLTree.take(xmlXPathCastNodeToString(nodes[$0])) }
        case XPATH_BOOLEAN:
            return result.pointee.boolval != 0 ? ["true"] : []
        case XPATH_NUMBER:
            return [XMLTree.take(xmlXPathCastNumberToString(result.pointee.floatval))]
        case XPATH_STRING:
            return [result.pointee.stringval.map { String(cString: $0) } ?? ""]
        default:
            return []
        }
    }

    /// A string libxml2 allocated for the caller, freed once copied.
    static func take(_ pointer: UnsafeMutablePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        defer { understudy_xml_free(pointer) }
        return String(cString: pointer)
    }
}

extension String {
    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
