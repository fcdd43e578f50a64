import MockCore

extension Emulator {
    /// The WebSphere Commerce "Madisons" mobile storefront over the catalog, stores and page
    /// templates in `stubs/commerce/` (docs/commerce.md).
    public static let commerce = Emulator(
        name: "commerce",
        summary: "WebSphere Commerce Madisons storefront (/webapp/wcs/stores/servlet)",
        checkedFiles: "the catalog, stores, shoppers and page templates",
        benchmarks: [
            EmulatorBenchmark(
                name: "commerce-product", about: "The Madisons storefront: a product page with its SKUs.",
                path: "/webapp/wcs/stores/servlet/mProductDisplayView?storeId=10152&catalogId=10051&langId=-1&productId=12001"),
            EmulatorBenchmark(
                name: "commerce-search", about: "A search with its first page of results.",
                path: "/webapp/wcs/stores/servlet/mCatalogSearchResultView?storeId=10152&catalogId=10051&langId=-1&searchTerm=dress&pgGrp=search"),
        ],
        start: { CommerceBackend(directory: $0.directory, logger: $0.logger) },
        check: { CommerceBackend.check(directory: $0) })
}
