import Foundation
import HTTPServer
import WireFormat

/// `/wcsstore/Madisons/…`: the storefront's CSS and JavaScript (files of `stubs/commerce/assets`,
/// read once) and the product images, drawn per product (SVG: a tinted tile with its name).
struct StoreAssets: Sendable {
    static let root = "/wcsstore/Madisons/"
    private let files: [String: SharedBytes]

    init(directory: URL) {
        var files: [String: SharedBytes] = [:]
        if let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) {
            for case let file as URL in walker where !file.hasDirectoryPath {
                guard let data = FileManager.default.contents(atPath: file.path) else { continue }
                let relative = String(file.standardizedFileURL.path.dropFirst(directory.standardizedFileURL.path.count + 1))
                files[relative] = SharedBytes(Array(data))
            }
        }
        self.files = files
    }

    static func imagePath(_ product: Product, size: String) -> String {
        "\(root)images/catalog/\(product.partNumber)_\(size).svg"
    }

    func response(for path: String, catalog: CommerceCatalog) -> Response {
        guard path.hasPrefix(Self.root) else { return .text("Not found: \(path)\n", status: 404) }
        let relative = String(path.dropFirst(Self.root.count))
        if relative.hasPrefix("images/catalog/"), relative.hasSuffix(".svg") {
            let name = relative.dropFirst("images/catalog/".count).dropLast(4)
            guard let underscore = name.lastIndex(of: "_"), let product = catalog.product(partNumber: String(name[..<underscore])) else {
                return .text("Not found: \(path)\n", status: 404)
            }
            let size = name[name.index(after: underscore)...] == "thumb" ? 160 : 480
            return Response(
                status: 200, headers: ["Content-Type": "image/svg+xml", "Cache-Control": "max-age=86400"],
                body: ResponseBody(Self.image(product, size: size)))
        }
        guard let file = files[relative] else { return .text("Not found: \(path)\n", status: 404) }
        return Response(
            status: 200, headers: ["Content-Type": Self.contentType(relative), "Cache-Control": "max-age=3600"], body: ResponseBody(shared: file))
    }

    static func contentType(_ path: String) -> String {
        if path.hasSuffix(".css") { return "text/css" }
        if path.hasSuffix(".js") { return "application/x-javascript" }
        if path.hasSuffix(".png") { return "image/png" }
        if path.hasSuffix(".svg") { return "image/svg+xml" }
        return "application/octet-stream"
    }

    static func image(_ product: Product, size: Int) -> String {
        let name = TextEscaper.svgText.escaped(product.name.en)
        let color = product.color.allSatisfy { $0 == "#" || $0.isHexDigit } ? product.color : "#888888"
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(size)" height="\(size)" viewBox="0 0 160 160">\
            <rect width="160" height="160" fill="#f4f1ec"/><rect x="20" y="20" width="120" height="92" rx="10" fill="\(color)"/>\
            <text x="80" y="136" font-family="Helvetica, Arial, sans-serif" font-size="11" text-anchor="middle" fill="#333">\(name)</text>\
            </svg>
            """
    }
}
