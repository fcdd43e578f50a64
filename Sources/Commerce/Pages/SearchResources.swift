import Foundation
import HTTPServer
import JSON
import MockCore

/// The WebSphere Commerce search REST services a native search bar calls, under
/// `/search/resources/store/{storeId}/` (feature pack 7 on) or `/wcs/resources/store/{storeId}/`
/// (the same resources before, on the Commerce server; their JSON there is unverified): `productview/bySearchTerm/{term}`, `…/byId/{id}`,
/// `…/byCategory/{id}`, `…/{partNumber}`, `categoryview/@top`, `…/byParentCategory/{id}`,
/// `…/byId/{id}`. JSON as the FEP7 samples have it: tab-indented, `\/` escaped, flags and prices
/// as strings, `recordSet*` counts as numbers. Paging (`pageSize`, `pageNumber`) and the error
/// document's shape are unverified.
struct SearchResources: Sendable {
    let catalog: CommerceCatalog

    /// `basePath`: the scope prefix the request came under, kept in the links it answers.
    func response(for request: Request, basePath: String) -> Response {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map { PercentDecoding.decode($0, plusAsSpace: false) }
        // search (or wcs), resources, store, {storeId}, {resource}, …
        guard parts.count >= 5, parts[2] == "store" else { return restError(404, "_ERR_RESOURCE_NOT_FOUND", "No resource at \(request.path).") }
        guard parts[3] == catalog.store.storeId else {
            return restError(404, "_ERR_INVALID_STOREID", "The store ID \(parts[3]) is not valid.")
        }
        if let catalogId = request.query("catalogId"), catalogId != catalog.store.masterCatalogId, catalogId != catalog.store.catalogId {
            return restError(400, "_ERR_INVALID_CATALOG_ID", "The catalog ID \(catalogId) is not valid for store \(catalog.store.storeId).")
        }
        let language = StoreLanguage(langId: request.query("langId"))
        let host = request.headers["Host"] ?? "localhost"
        let base = "http://\(host)\(basePath)/\(parts[0])/resources/store/\(catalog.store.storeId)/"
        let resourceId = "http://\(host)\(basePath)\(request.rawPath)"
        switch (parts[4], parts.count > 5 ? parts[5] : nil, parts.count > 6 ? parts[6] : nil) {
        case ("productview", "bySearchTerm", let term?):
            return productList(catalog.search(term, language: language), request, language, base: base, resourceId: resourceId)
        case ("productview", "byCategory", let id?):
            guard catalog.category(id) != nil || catalog.department(id) != nil else {
                return restError(404, "_ERR_CATEGORY_NOT_FOUND", "The category \(id) was not found.")
            }
            return productList(catalog.products(under: id), request, language, base: base, resourceId: resourceId)
        case ("productview", "byId", let id?):
            guard let product = catalog.product(id) else { return restError(404, "_ERR_PRODUCT_NOT_FOUND", "The product \(id) was not found.") }
            return productList([product], request, language, base: base, resourceId: resourceId)
        case ("productview", let partNumber?, nil) where partNumber != "bySearchTerm" && partNumber != "byId" && partNumber != "byCategory":
            guard let product = catalog.product(partNumber: partNumber) else {
                return restError(404, "_ERR_PRODUCT_NOT_FOUND", "The product \(partNumber) was not found.")
            }
            return productList([product], request, language, base: base, resourceId: resourceId)
        case ("categoryview", "@top", nil):
            return categoryList(
                catalog.departments.map { ($0.id, $0.identifier, $0.name, $0.shortDescription, "-1", $0.categories.map(\.id)) },
                language, base: base, resourceId: resourceId)
        case ("categoryview", "byParentCategory", let id?):
            guard let department = catalog.department(id) else {
                return catalog.category(id) != nil
                    ? categoryList([], language, base: base, resourceId: resourceId)
                    : restError(404, "_ERR_CATEGORY_NOT_FOUND", "The category \(id) was not found.")
            }
            return categoryList(
                department.categories.map { ($0.id, $0.identifier, $0.name, $0.shortDescription, department.id, []) },
                language, base: base, resourceId: resourceId)
        case ("categoryview", "byId", let id?):
            if let department = catalog.department(id) {
                return categoryList(
                    [(department.id, department.identifier, department.name, department.shortDescription, "-1", department.categories.map { $0.id })],
                    language, base: base, resourceId: resourceId)
            }
            guard let (department, category) = catalog.category(id) else {
                return restError(404, "_ERR_CATEGORY_NOT_FOUND", "The category \(id) was not found.")
            }
            return categoryList(
                [(category.id, category.identifier, category.name, category.shortDescription, department.id, [])],
                language, base: base, resourceId: resourceId)
        default:
            return restError(404, "_ERR_RESOURCE_NOT_FOUND", "No resource at \(request.path).")
        }
    }

    private func productList(_ products: [Product], _ request: Request, _ language: StoreLanguage, base: String, resourceId: String) -> Response {
        let pageSize = max(1, min(1000, Int(request.query("pageSize") ?? "") ?? 50))
        let pageNumber = max(1, Int(request.query("pageNumber") ?? "") ?? 1)
        let start = min(products.count, (pageNumber - 1) * pageSize)
        let page = products[start..<min(products.count, start + pageSize)]
        let views: [JSONValue] = page.map { product in
            .object([
                ("buyable", "true"),
                ("catalogEntryTypeCode", product.skus.count > 1 ? "ProductBean" : "ItemBean"),
                ("manufacturer", .string(product.manufacturer)),
                ("name", .string(product.name.text(language))),
                ("parentCatalogGroupID", .string(product.category)),
                ("partNumber", .string(product.partNumber)),
                (
                    "price",
                    .array([
                        .object([
                            ("currency", .string(catalog.store.currency)), ("description", "L"), ("usage", "Display"),
                            ("value", .string(product.listPrice)),
                        ]),
                        .object([
                            ("currency", .string(catalog.store.currency)), ("description", "I"), ("usage", "Offer"),
                            ("value", .string(product.price)),
                        ]),
                    ])
                ),
                ("resourceId", .string(base + "productview/byId/" + product.id)),
                ("shortDescription", .string(product.shortDescription.text(language))),
                ("storeID", .string(catalog.store.storeId)),
                ("thumbnail", .string(StoreAssets.imagePath(product, size: "thumb"))),
                ("uniqueID", .string(product.id)),
            ])
        }
        return restJSON(
            .object([
                ("catalogEntryView", .array(views)),
                ("recordSetComplete", .string(page.endIndex >= products.count ? "true" : "false")),
                ("recordSetCount", .int(page.count)),
                ("recordSetStartNumber", .int(start)),
                ("recordSetTotal", .int(products.count)),
                ("resourceId", .string(resourceId)),
                ("resourceName", "productview"),
            ]))
    }

    private func categoryList(
        _ groups: [(id: String, identifier: String, name: LocalizedText, description: LocalizedText, parent: String, children: [String])],
        _ language: StoreLanguage, base: String, resourceId: String
    ) -> Response {
        let views: [JSONValue] = groups.map { group in
            var members: [(String, JSONValue)] = []
            if !group.children.isEmpty {
                members.append(("childCatalogGroupID", .array(group.children.map { .string("\(group.id)_\($0)") })))
            }
            members += [
                ("identifier", .string(group.identifier)),
                ("name", .string(group.name.text(language))),
                ("parentCatalogGroupID", .string(group.parent)),
                ("productsURL", .string(base + "productview/byCategory/" + group.id)),
                ("resourceId", .string(base + "categoryview/byId/" + group.id)),
                ("shortDescription", .string(group.description.text(language))),
                ("storeID", .string(catalog.store.storeId)),
                ("uniqueID", .string(group.id)),
            ]
            return .object(members)
        }
        return restJSON(
            .object([
                ("catalogGroupView", .array(views)),
                ("recordSetComplete", "true"),
                ("recordSetCount", .int(views.count)),
                ("recordSetStartNumber", 0),
                ("recordSetTotal", .int(views.count)),
                ("resourceId", .string(resourceId)),
                ("resourceName", "categoryview"),
            ]))
    }

    private func restJSON(_ json: JSONValue, status: Int = 200) -> Response {
        var text = ""
        Self.write(json, to: &text, depth: 0)
        return Response(status: status, headers: ["Content-Type": "application/json"], body: ResponseBody(text))
    }

    /// As the samples are laid out: tab indentation, `"name": value`, every `/` escaped as `\/`.
    private static func write(_ json: JSONValue, to out: inout String, depth: Int) {
        let indent = String(repeating: "\t", count: depth + 1)
        let closing = String(repeating: "\t", count: depth)
        switch json {
        case .object(let members):
            out += "{\n"
            for (index, (name, value)) in members.enumerated() {
                out += indent + JSONValue.string(name).serialized + ": "
                write(value, to: &out, depth: depth + 1)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += closing + "}"
        case .array(let items):
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += indent
                write(item, to: &out, depth: depth + 1)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += closing + "]"
        case .string:
            out += json.serialized.replacingOccurrences(of: "/", with: "\\/")
        default:
            out += json.serialized
        }
    }

    private func restError(_ status: Int, _ key: String, _ message: String) -> Response {
        restJSON(
            .object([
                (
                    "errors",
                    .array([
                        .object([
                            ("errorKey", .string(key)), ("errorParameters", ""), ("errorMessage", .string(message)),
                            ("errorCode", .string(String(status))),
                        ])
                    ])
                )
            ]), status: status)
    }
}
