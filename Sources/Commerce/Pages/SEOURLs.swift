import HTTPServer

/// The storefront's SEO URLs: `/shop/<lang>/<storeKeyword>[/<keyword>]`, or the same under the
/// servlet (`/webapp/wcs/stores/servlet/<lang>/…`, the form without the web server's rewrite):
/// the home page, a department or category by its keyword, a product by its part number
/// (lower-cased).
struct SEOURLs: Sendable {
    let catalog: CommerceCatalog

    /// The view `path` shows and the parameters it stands for; nil when it names nothing here.
    func view(_ path: String) -> (view: String, parameters: [QueryItem])? {
        let servlet = CommerceBackend.servlet
        let rest = path.hasPrefix(servlet) ? path.dropFirst(servlet.count) : path.dropFirst("/shop/".count)
        guard path.hasPrefix(servlet) || path.hasPrefix("/shop/") else { return nil }
        let parts = ["shop"] + rest.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[2].lowercased() == catalog.store.keyword.lowercased() else { return nil }
        let langId = parts[1] == "fr" ? "-2" : "-1"
        guard parts.count > 3 else { return ("StoreView", [QueryItem(name: "langId", value: langId)]) }
        let keyword = parts[3].lowercased()
        for department in catalog.departments {
            if department.keyword == keyword {
                return ("mCategoriesDisplayView", [QueryItem(name: "categoryId", value: department.id), QueryItem(name: "langId", value: langId)])
            }
            for category in department.categories where category.keyword == keyword {
                return ("mCategoriesDisplayView", [QueryItem(name: "categoryId", value: category.id), QueryItem(name: "langId", value: langId)])
            }
        }
        if let product = catalog.product(partNumber: keyword.uppercased()) {
            return ("mProductDisplayView", [QueryItem(name: "productId", value: product.id), QueryItem(name: "langId", value: langId)])
        }
        return nil
    }
}
