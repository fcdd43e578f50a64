// XML from clients (Lotus posts, XML body patterns): XMLTree.parse, a walk over the tree, then
// XPath. Input: an XPath expression, NUL, the XML document; no NUL: the whole input is the
// document, queried with a fixed expression.
import FuzzSupport
import XML

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let hasExpression = input.bytes.contains(0)
    let (first, second) = input.halves
    let expression = hasExpression ? first.text : "//*[@id]/text()"
    let document = hasExpression ? second : first
    guard let tree = try? XMLTree.parse(document, limits: XMLLimits(maxBytes: 1 << 20, maxAttributesPerElement: 64)) else { return 0 }
    var budget = 10_000
    walk(tree.root, &budget)
    _ = try? tree.evaluate(xPath: expression, namespaces: ["a": "http://www.w3.org/2005/Atom", "x": "urn:x"])
    _ = try? tree.evaluate(xPath: "count(//*)")
    return 0
}

private func walk(_ element: XMLElementView, _ budget: inout Int) {
    budget -= 1
    guard budget > 0 else { return }
    _ = element.localName
    _ = element.namespaceURI
    _ = element.attributes
    _ = element.attribute("id")
    _ = element.text
    for child in element.children {
        if case .element(let inner) = child { walk(inner, &budget) }
    }
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
