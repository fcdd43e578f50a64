import HTTPServer
import MockCore
import Templating

/// The catalog's pages: the home page, the departments, a department's categories or a
/// category's products, and a product with its SKUs. What they show depends only on the request,
/// the catalog and the header's cart count, so the backend keeps them as rendered.
struct CatalogPages: Sendable {
    let catalog: CommerceCatalog
    let renderer: PageRenderer
    let values: StoreValues

    /// `StoreView`: the departments and a featured product of each.
    func home(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let featured = catalog.departments.compactMap { catalog.products(under: $0.id).first }
        return renderer.page(
            "StoreView", store, scope: context.scope, title: renderer.label("home", store.language),
            [
                ("departments", .array(catalog.departments.map { values.departmentValue($0, store.language) })),
                ("featured", .array(featured.map { values.productValue($0, store.language) })),
            ])
    }

    /// `mTopCategoriesDisplayView`.
    func topCategories(_ store: StoreRequest, _ context: RequestContext) -> Response {
        renderer.page(
            "TopCategoriesDisplay", store, scope: context.scope, title: renderer.label("departments", store.language),
            [
                ("departments", .array(catalog.departments.map { values.departmentValue($0, store.language) }))
            ])
    }

    /// `mCategoriesDisplayView`: a department's categories, or a category's products with paging.
    func category(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let id = store.text("categoryId")
        if let department = catalog.department(id) {
            return renderer.page(
                "CategoriesDisplay", store, scope: context.scope, title: department.name.text(store.language),
                [
                    ("department", values.departmentValue(department, store.language)),
                    ("categories", .array(department.categories.map { values.categoryValue($0, store.language) })),
                ])
        }
        guard let (department, category) = catalog.category(id) else {
            return renderer.errorPage(
                store, message: renderer.label("errorNoCategory", store.language) + PageRenderer.naming("categoryId", id),
                scope: context.scope)
        }
        let products = catalog.products(inCategory: category.id)
        let paging = Paging(store, total: products.count, defaultSize: 12)
        let link = "\(CommerceBackend.servlet)mCategoriesDisplayView?\(renderer.baseQuery(store.language))&categoryId=\(category.id)"
        return renderer.page(
            "ProductListing", store, scope: context.scope, title: category.name.text(store.language),
            [
                ("department", values.departmentValue(department, store.language)),
                ("category", values.categoryValue(category, store.language)),
                ("products", .array(products[paging.range].map { values.productValue($0, store.language) })),
                ("paging", paging.value(link: link)),
            ])
    }

    /// `mProductDisplayView` of `productId` (or a SKU's id).
    func product(_ store: StoreRequest, _ context: RequestContext) -> Response {
        let id = store.text("productId")
        guard let product = catalog.product(id) ?? catalog.item(id)?.product else {
            return renderer.errorPage(
                store, message: renderer.label("errorNoProduct", store.language) + PageRenderer.naming("productId", id),
                scope: context.scope)
        }
        let category = catalog.category(product.category)
        var members: TemplateMembers = [("product", values.productValue(product, store.language, detailed: true))]
        if let category {
            members.append(("department", values.departmentValue(category.department, store.language)))
            members.append(("category", values.categoryValue(category.category, store.language)))
        }
        if let message = store["errorMessage"] { members.append(("error", .string(message))) }
        return renderer.page("ProductDisplay", store, scope: context.scope, title: product.name.text(store.language), members)
    }
}
