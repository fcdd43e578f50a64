import HTTPServer
import MockCore
import Templating

/// `mCatalogSearchResultView`: the products matching `searchTerm` (whole words, plurals folded;
/// name matches first), with paging.
struct SearchResultsPage: Sendable {
    let catalog: CommerceCatalog
    let renderer: PageRenderer
    let values: StoreValues

    func render(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let term = store.text("searchTerm")
        let found = catalog.search(term, language: store.language)
        let paging = Paging(store, total: found.count, defaultSize: 10)
        let link =
            "\(CommerceBackend.servlet)mCatalogSearchResultView?\(renderer.baseQuery(store.language))&searchTerm=\(term.percentEncoded)&pgGrp=search"
        return renderer.page(
            "CatalogSearchResult", store, scope: context.scope, title: renderer.label("searchResults", store.language),
            [
                ("searchTerm", .string(term)),
                ("total", .number(Double(found.count))),
                ("products", .array(found[paging.range].map { values.productValue($0, store.language) })),
                ("paging", paging.value(link: link)),
            ])
    }
}
