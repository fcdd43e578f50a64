import Foundation
import HTTPServer
import MockCore
import Templating

/// The storefront's page templates (`templates/<view>.html`, Handlebars, rendered inside
/// `templates/layout.html`) and their labels in each language (`labels.json`). Loaded once;
/// a template that does not parse is reported with its file, line and column.
struct StorePages: Sendable {
    private let templates: [String: Template]
    private let labels: [StoreLanguage: TemplateValue]

    static let helpers = TemplateHelpers.standard
        .adding("money") { call throws(HelperError) in
            // Prices as the store shows them: $1,234.50
            .string(Money.format(Decimal(string: call.param(0).text) ?? 0))
        }

    init(templates: [String: Template], labels: [StoreLanguage: TemplateValue]) {
        self.templates = templates
        self.labels = labels
    }

    /// Every `*.html` of `directory/templates` and `directory/labels.json`, with the problems found.
    static func load(_ directory: URL) -> (StorePages, [FixtureError]) {
        var problems: [FixtureError] = []
        var templates: [String: Template] = [:]
        let folder = directory.appendingPathComponent("templates")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        if names.isEmpty { problems.append(FixtureError(file: folder.path, line: 0, message: "no templates")) }
        for name in names.sorted() where name.hasSuffix(".html") {
            let file = folder.appendingPathComponent(name)
            guard let source = try? String(contentsOf: file, encoding: .utf8) else {
                problems.append(FixtureError(file: file.path, line: 0, message: "cannot read the file as UTF-8"))
                continue
            }
            do {
                templates[String(name.dropLast(5))] = try Template(source, helpers: helpers)
            } catch {
                problems.append(FixtureError(file: file.path, line: error.line, message: "column \(error.column): \(error.message)"))
            }
        }
        var labels: [StoreLanguage: TemplateValue] = [:]
        let labelsFile = directory.appendingPathComponent("labels.json")
        do {
            let json = try FixtureError.configuration(at: labelsFile) ?? .object([])
            for language in [StoreLanguage.english, .french] {
                labels[language] = TemplateValue(json[language.code] ?? .object([]))
            }
        } catch {
            problems.append(error)
        }
        return (StorePages(templates: templates, labels: labels), problems)
    }

    func has(_ view: String) -> Bool { templates[view] != nil }

    /// `view`'s template over `values`, inside the layout; the labels of `language` are `labels`.
    func render(_ view: String, _ values: [(String, TemplateValue)], title: String, common: [(String, TemplateValue)],
                language: StoreLanguage) -> String {
        let labels = self.labels[language] ?? .null
        let context = TemplateValue.object(TemplateObject(common + values + [("labels", labels), ("title", .string(title))]))
        let body = templates[view]?.render(context) ?? ""
        guard let layout = templates["layout"] else { return body }
        return layout.render(.object(TemplateObject(common + [("labels", labels), ("title", .string(title)), ("view", .string(view)), ("body", .string(body))])))
    }

    /// A label's text, for titles and messages made in code.
    func label(_ key: String, _ language: StoreLanguage) -> String {
        labels[language]?.member(key)?.text ?? labels[.english]?.member(key)?.text ?? key
    }
}

/// Prices as decimal text and as the store shows them.
enum Money {
    static func format(_ amount: Decimal) -> String {
        let cents = NSDecimalNumber(decimal: amount * 100).rounding(accordingToBehavior: nil).intValue
        let dollars = abs(cents) / 100
        var grouped = String(dollars)
        var index = grouped.count - 3
        while index > 0 {
            grouped.insert(",", at: grouped.index(grouped.startIndex, offsetBy: index))
            index -= 3
        }
        let fraction = String(abs(cents) % 100).leftPadded(to: 2)
        return (cents < 0 ? "-$" : "$") + grouped + "." + fraction
    }

    /// `12.5` → `"12.50"`.
    static func plain(_ amount: Decimal) -> String {
        let cents = NSDecimalNumber(decimal: amount * 100).rounding(accordingToBehavior: nil).intValue
        return String(cents / 100) + "." + String(abs(cents) % 100).leftPadded(to: 2)
    }
}
