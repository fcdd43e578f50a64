import Foundation
import MockCore

/// Text in the store's languages: English always, French where the fixture gives it.
struct LocalizedText: Codable, Sendable {
    var en: String
    var fr: String?

    func text(_ language: StoreLanguage) -> String { language == .french ? (fr ?? en) : en }
}

/// The store's two languages, by WebSphere Commerce `langId`.
enum StoreLanguage: String, Sendable {
    case english = "-1"
    case french = "-2"

    init(langId: String?) { self = langId == "-2" ? .french : .english }

    var locale: String { self == .french ? "fr_FR" : "en_US" }
    var code: String { self == .french ? "fr" : "en" }
}

struct StoreInfo: Codable, Sendable {
    var storeId: String
    var catalogId: String
    var masterCatalogId: String
    var keyword: String
    var name: String
    var currency: String
}

struct CatalogCategory: Codable, Sendable {
    var id: String
    var identifier: String
    var keyword: String
    var name: LocalizedText
    var shortDescription: LocalizedText
}

struct Department: Codable, Sendable {
    var id: String
    var identifier: String
    var keyword: String
    var name: LocalizedText
    var shortDescription: LocalizedText
    var categories: [CatalogCategory]
}

struct ProductAttribute: Codable, Sendable {
    var name: String
    var values: [String]
}

/// A buyable item of a product: one combination of its defining attributes.
struct SKU: Codable, Sendable {
    var id: String
    var partNumber: String
    var attributes: [String: String]
    var inventory: Int
}

struct Product: Codable, Sendable {
    var id: String
    var partNumber: String
    /// The category it is listed in.
    var category: String
    var name: LocalizedText
    var shortDescription: LocalizedText
    var longDescription: LocalizedText
    var manufacturer: String
    /// Offer price and list price, as decimal text ("89.99").
    var price: String
    var listPrice: String
    /// The colour its generated image is drawn in.
    var color: String
    var attributes: [ProductAttribute]
    var skus: [SKU]
}

/// The store's catalog (`stubs/commerce/catalog.json`), indexed for the views.
struct CommerceCatalog: Sendable {
    let store: StoreInfo
    let departments: [Department]
    let products: [Product]
    private let productIndex: [String: Int]
    private let partNumberIndex: [String: Int]
    /// SKU id → (product index, SKU index).
    private let skuIndex: [String: (Int, Int)]
    private let categoryIndex: [String: (department: Int, category: Int?)]
    let productsByCategory: [String: [Int]]
    /// "Color: Red, Size: M" by SKU id, made once.
    private let skuDescriptions: [String: String]
    /// Per language, each word's products in catalog order, with what a match there is worth: 2
    /// for a word of the name, 1 for one of everything else searched. A search looks up its words
    /// instead of testing every product.
    private let searchIndex: [StoreLanguage: [String: [(index: Int, score: Int)]]]

    private struct File: Codable {
        var store: StoreInfo
        var departments: [Department]
        var products: [Product]
    }

    init(store: StoreInfo, departments: [Department], products: [Product]) {
        self.store = store
        self.departments = departments
        self.products = products
        productIndex = Dictionary(products.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
        partNumberIndex = Dictionary(products.enumerated().map { ($0.element.partNumber, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var skus: [String: (Int, Int)] = [:]
        var byCategory: [String: [Int]] = [:]
        for (index, product) in products.enumerated() {
            for (skuOffset, sku) in product.skus.enumerated() { skus[sku.id] = (index, skuOffset) }
            byCategory[product.category, default: []].append(index)
        }
        skuIndex = skus
        skuDescriptions = Dictionary(
            products.flatMap(\.skus).map { sku in
                (sku.id, sku.attributes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
            }, uniquingKeysWith: { first, _ in first })
        productsByCategory = byCategory
        var categories: [String: (Int, Int?)] = [:]
        for (departmentOffset, department) in departments.enumerated() {
            categories[department.id] = (departmentOffset, nil)
            for (categoryOffset, category) in department.categories.enumerated() { categories[category.id] = (departmentOffset, categoryOffset) }
        }
        categoryIndex = categories
        var searchIndex: [StoreLanguage: [String: [(index: Int, score: Int)]]] = [:]
        for language in [StoreLanguage.english, .french] {
            var postings: [String: [(index: Int, score: Int)]] = [:]
            for (index, product) in products.enumerated() {
                let place = categories[product.category]
                let department = place.map { departments[$0.0] }
                let category = place.flatMap { place in place.1.map { department!.categories[$0] } }
                let rest = [
                    product.shortDescription.text(language), product.longDescription.text(language), product.manufacturer,
                    product.partNumber, category?.name.text(language) ?? "", department?.name.text(language) ?? "",
                ]
                let name = Set(Self.words(product.name.text(language)))
                for word in name { postings[word, default: []].append((index, 2)) }
                for word in Set(Self.words(rest.joined(separator: " "))).subtracting(name) { postings[word, default: []].append((index, 1)) }
            }
            searchIndex[language] = postings
        }
        self.searchIndex = searchIndex
    }

    static let empty = CommerceCatalog(
        store: StoreInfo(
            storeId: "10152", catalogId: "10051", masterCatalogId: "10001",
            keyword: "madisonsesite", name: "Madisons", currency: "USD"),
        departments: [], products: [])

    /// Reads `catalog.json`; a problem is reported with the file and the field.
    static func load(_ url: URL) throws(FixtureError) -> CommerceCatalog {
        let file: File = try FixtureJSON.decode(url)
        let catalog = CommerceCatalog(store: file.store, departments: file.departments, products: file.products)
        for (index, product) in file.products.enumerated() {
            guard catalog.categoryIndex[product.category]?.category != nil else {
                throw FixtureError.field(
                    url, "products[\(index)].category", "no category '\(product.category)' (a product is listed in a category, not a department)")
            }
            guard !product.skus.isEmpty else { throw FixtureError.field(url, "products[\(index)].skus", "a product needs at least one SKU") }
            guard Decimal(string: product.price) != nil else {
                throw FixtureError.field(url, "products[\(index)].price", "expected a decimal such as \"19.99\"")
            }
        }
        return catalog
    }

    func product(_ id: String) -> Product? { productIndex[id].map { products[$0] } }

    func product(partNumber: String) -> Product? { partNumberIndex[partNumber].map { products[$0] } }

    /// A SKU and the product it belongs to; a product id gives its first SKU.
    func item(_ catalogEntryId: String) -> (product: Product, sku: SKU)? {
        if let (productOffset, skuOffset) = skuIndex[catalogEntryId] {
            return (products[productOffset], products[productOffset].skus[skuOffset])
        }
        if let product = product(catalogEntryId), let first = product.skus.first { return (product, first) }
        return nil
    }

    func description(of sku: SKU) -> String { skuDescriptions[sku.id] ?? "" }

    func department(_ id: String) -> Department? {
        guard let place = categoryIndex[id], place.category == nil else { return nil }
        return departments[place.department]
    }

    /// A category and its department.
    func category(_ id: String) -> (department: Department, category: CatalogCategory)? {
        guard let place = categoryIndex[id], let category = place.category else { return nil }
        return (departments[place.department], departments[place.department].categories[category])
    }

    func products(inCategory id: String) -> [Product] {
        (productsByCategory[id] ?? []).map { products[$0] }
    }

    /// Every product under a department or category.
    func products(under id: String) -> [Product] {
        if let department = department(id) { return department.categories.flatMap { products(inCategory: $0.id) } }
        return products(inCategory: id)
    }

    /// Products matching every word of `term` as a whole word (name, descriptions, manufacturer,
    /// part number, category), plurals folded as a search index does; name matches rank first,
    /// then catalog order.
    func search(_ term: String, language: StoreLanguage) -> [Product] {
        let wanted = Self.words(term)
        guard let first = wanted.first, let postings = searchIndex[language] else { return [] }
        // The first word's products, kept while every other word matches them too.
        var scored = (postings[first] ?? []).map { (score: $0.score, index: $0.index) }
        for word in wanted.dropFirst() where !scored.isEmpty {
            let scores = Dictionary((postings[word] ?? []).map { ($0.index, $0.score) }, uniquingKeysWith: { first, _ in first })
            scored = scored.compactMap { match in scores[match.index].map { (match.score + $0, match.index) } }
        }
        return scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }.map { products[$0.index] }
    }

    /// Lower-cased words with English plurals folded ("dresses" → "dress", "shoes" → "shoe").
    static func words(_ text: String) -> [String] {
        asciiWords(text) ?? wordsByCharacter(text)
    }

    /// `words` by `Character`, for any text.
    static func wordsByCharacter(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "-" }.map(folded)
    }

    /// `words` of ASCII text, found from its bytes (nil for other text): there the letters and
    /// digits are the only characters `isLetter` and `isNumber` accept, and lower-casing is a
    /// byte's. Splitting by `Character` cost more than the rest of a search.
    private static func asciiWords(_ text: String) -> [String]? {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var words: [String] = []
        var word: [UInt8] = []
        func endWord() {
            guard !word.isEmpty else { return }
            words.append(folded(Substring(decoding: word, as: UTF8.self)))
            word.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte | 0x20)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): word.append(byte)
            default: endWord()
            }
        }
        endWord()
        return words
    }

    private static func folded(_ word: Substring) -> String {
        if word.count > 4, ["sses", "xes", "ches", "shes"].contains(where: { word.hasSuffix($0) }) { return String(word.dropLast(2)) }
        if word.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss") { return String(word.dropLast()) }
        return String(word)
    }
}
