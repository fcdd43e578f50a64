import Foundation
import Templating

/// The catalog, orders and stores as the templates see them.
struct StoreValues: Sendable {
    let catalog: CommerceCatalog
    /// The catalog's entries, made once per language.
    private let catalogValues: CatalogValues

    init(catalog: CommerceCatalog) {
        self.catalog = catalog
        catalogValues = CatalogValues(catalog: catalog)
    }

    func departmentValue(_ department: Department, _ language: StoreLanguage) -> TemplateValue {
        catalogValues.department(department, language)
    }

    func categoryValue(_ category: CatalogCategory, _ language: StoreLanguage) -> TemplateValue {
        catalogValues.category(category, language)
    }

    func productValue(_ product: Product, _ language: StoreLanguage, detailed: Bool = false) -> TemplateValue {
        catalogValues.product(product, language, detailed: detailed)
    }

    func skuValue(_ sku: SKU) -> TemplateValue {
        catalogValues.sku(sku)
    }

    /// The cart's lines and totals.
    func orderValues(_ lines: [OrderLine], _ language: StoreLanguage) -> TemplateMembers {
        [
            ("lines", .array(lines.enumerated().map { lineValue($0.element, number: $0.offset + 1, language) })),
            ("itemCount", .number(Double(lines.itemCount))),
            ("subtotal", .string(Money.plain(lines.subtotal))),
            ("empty", .bool(lines.isEmpty)),
        ]
    }

    func lineValue(_ line: OrderLine, number: Int, _ language: StoreLanguage) -> TemplateValue {
        let item = catalog.item(line.skuId)
        return object([
            ("number", .number(Double(number))), ("orderItemId", .string(line.orderItemId)), ("skuId", .string(line.skuId)),
            ("quantity", .number(Double(line.quantity))), ("unitPrice", .string(Money.plain(line.unitPrice))),
            ("total", .string(Money.plain(line.unitPrice * Decimal(line.quantity)))),
            ("product", item.map { productValue($0.product, language) } ?? .null),
            ("sku", item.map { skuValue($0.sku) } ?? .null),
        ])
    }

    func placedOrderValue(_ order: PlacedOrder, _ language: StoreLanguage) -> TemplateValue {
        object([
            ("id", .string(order.id)), ("placed", .string(Self.orderDate(order.placed))),
            ("lines", .array(order.lines.enumerated().map { lineValue($0.element, number: $0.offset + 1, language) })),
            ("subtotal", .string(Money.plain(order.subtotal))), ("shipping", .string(Money.plain(order.shipping))),
            ("tax", .string(Money.plain(order.tax))), ("total", .string(Money.plain(order.total))),
            ("address", addressValue(order.address, index: 0)), ("shippingMode", .string(order.shippingMode)),
            ("status", .string("M")),
        ])
    }

    func addressValue(_ address: ShopperAddress, index: Int) -> TemplateValue {
        object([
            ("index", .number(Double(index))), ("nickName", .string(address.nickName)), ("firstName", .string(address.firstName)),
            ("lastName", .string(address.lastName)), ("address1", .string(address.address1)), ("city", .string(address.city)),
            ("state", .string(address.state)), ("zipCode", .string(address.zipCode)), ("country", .string(address.country)),
            ("phone", .string(address.phone)), ("email", .string(address.email)),
        ])
    }

    func physicalStoreValue(_ store: PhysicalStore, kilometres: Double?) -> TemplateValue {
        object([
            ("id", .string(store.id)), ("name", .string(store.name)), ("address", .string(store.address)), ("city", .string(store.city)),
            ("state", .string(store.state)), ("zip", .string(store.zip)), ("phone", .string(store.phone)), ("hours", .string(store.hours)),
            ("latitude", .string(String(store.latitude))), ("longitude", .string(String(store.longitude))),
            ("miles", kilometres.map { .string(String(format: "%.1f", $0 / 1.609344)) } ?? .null),
        ])
    }

    static func orderDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MMMM d, yyyy"
        return formatter.string(from: date)
    }
}

/// A template object of these members, in order.
func object(_ members: TemplateMembers) -> TemplateValue { .object(TemplateObject(members)) }

/// Members of a template object, labelled as `TemplateObject` takes them (an unlabelled tuple
/// array would be converted element by element on every page).
typealias TemplateMembers = [(key: String, value: TemplateValue)]
