import Templating

/// The catalog's departments, categories, products and SKUs as the templates see them, made once
/// per language when the store loads: the catalog never changes while the server runs, and
/// building these values was most of a catalog page's cost. An id the catalog holds twice is made
/// per page instead, so that each page still shows the very entry it was given.
struct CatalogValues: Sendable {
    private struct Tables: Sendable {
        var departments: [String: TemplateValue] = [:]
        var categories: [String: TemplateValue] = [:]
        var products: [String: TemplateValue] = [:]
        var detailedProducts: [String: TemplateValue] = [:]
    }

    let catalog: CommerceCatalog
    private let english: Tables
    private let french: Tables
    private let skus: [String: TemplateValue]

    init(catalog: CommerceCatalog) {
        self.catalog = catalog
        // Makes each value whole (its tables are empty), for the tables below.
        let maker = CatalogValues(catalog: catalog, english: Tables(), french: Tables(), skus: [:])
        skus = Self.table(catalog.products.flatMap(\.skus), id: \.id, maker.makeSKU)
        func tables(_ language: StoreLanguage) -> Tables {
            Tables(
                departments: Self.table(catalog.departments, id: \.id) { maker.makeDepartment($0, language) },
                categories: Self.table(catalog.departments.flatMap(\.categories), id: \.id) { maker.makeCategory($0, language) },
                products: Self.table(catalog.products, id: \.id) { maker.makeProduct($0, language, detailed: false) },
                detailedProducts: Self.table(catalog.products, id: \.id) { maker.makeProduct($0, language, detailed: true) })
        }
        english = tables(.english)
        french = tables(.french)
    }

    private init(catalog: CommerceCatalog, english: Tables, french: Tables, skus: [String: TemplateValue]) {
        self.catalog = catalog
        self.english = english
        self.french = french
        self.skus = skus
    }

    /// Each item's value by its id, leaving out ids that more than one item has.
    private static func table<Item>(_ items: [Item], id: (Item) -> String, _ make: (Item) -> TemplateValue) -> [String: TemplateValue] {
        var counts: [String: Int] = [:]
        for item in items { counts[id(item), default: 0] += 1 }
        var table: [String: TemplateValue] = [:]
        for item in items where counts[id(item)] == 1 { table[id(item)] = make(item) }
        return table
    }

    private func tables(_ language: StoreLanguage) -> Tables { language == .french ? french : english }

    func department(_ department: Department, _ language: StoreLanguage) -> TemplateValue {
        tables(language).departments[department.id] ?? makeDepartment(department, language)
    }

    func category(_ category: CatalogCategory, _ language: StoreLanguage) -> TemplateValue {
        tables(language).categories[category.id] ?? makeCategory(category, language)
    }

    func product(_ product: Product, _ language: StoreLanguage, detailed: Bool) -> TemplateValue {
        let table = detailed ? tables(language).detailedProducts : tables(language).products
        return table[product.id] ?? makeProduct(product, language, detailed: detailed)
    }

    func sku(_ sku: SKU) -> TemplateValue {
        skus[sku.id] ?? makeSKU(sku)
    }

    private func makeDepartment(_ department: Department, _ language: StoreLanguage) -> TemplateValue {
        object([
            ("id", .string(department.id)), ("identifier", .string(department.identifier)), ("keyword", .string(department.keyword)),
            ("name", .string(department.name.text(language))), ("description", .string(department.shortDescription.text(language))),
            ("categories", .array(department.categories.map { category($0, language) })),
        ])
    }

    private func makeCategory(_ category: CatalogCategory, _ language: StoreLanguage) -> TemplateValue {
        object([
            ("id", .string(category.id)), ("identifier", .string(category.identifier)), ("keyword", .string(category.keyword)),
            ("name", .string(category.name.text(language))), ("description", .string(category.shortDescription.text(language))),
            ("count", .number(Double(catalog.products(inCategory: category.id).count))),
        ])
    }

    private func makeProduct(_ product: Product, _ language: StoreLanguage, detailed: Bool) -> TemplateValue {
        var members: TemplateMembers = [
            ("id", .string(product.id)), ("partNumber", .string(product.partNumber)),
            ("name", .string(product.name.text(language))), ("shortDescription", .string(product.shortDescription.text(language))),
            ("manufacturer", .string(product.manufacturer)), ("price", .string(product.price)),
            ("listPrice", product.listPrice != product.price ? .string(product.listPrice) : .null),
            ("thumbnail", .string(StoreAssets.imagePath(product, size: "thumb"))),
            ("image", .string(StoreAssets.imagePath(product, size: "full"))),
            // As the `money` helper shows them, made here once instead of on every page.
            ("formattedPrice", .string(Money.format(cents: Money.cents(product.price)))),
            ("formattedListPrice", product.listPrice != product.price ? .string(Money.format(cents: Money.cents(product.listPrice))) : .null),
        ]
        if detailed {
            members.append(("longDescription", .string(product.longDescription.text(language))))
            members.append(
                (
                    "attributes",
                    .array(
                        product.attributes.map { attribute in
                            object([("name", .string(attribute.name)), ("values", .array(attribute.values.map(TemplateValue.string)))])
                        })
                ))
            members.append(("skus", .array(product.skus.map(sku))))
            members.append(("singleSku", product.skus.count == 1 ? .string(product.skus[0].id) : .null))
        }
        return object(members)
    }

    private func makeSKU(_ sku: SKU) -> TemplateValue {
        object([
            ("id", .string(sku.id)), ("partNumber", .string(sku.partNumber)), ("description", .string(catalog.description(of: sku))),
            ("inStock", .bool(sku.inventory > 0)), ("inventory", .number(Double(sku.inventory))),
        ])
    }
}
