import Foundation
import HTTPServer
import MockCore
import Templating
import WireFormat

/// The storefront's page templates (`templates/<view>.html`, Handlebars, rendered inside
/// `templates/layout.html`) and their labels in each language (`labels.json`). Loaded once;
/// a template that does not parse is reported with its file, line and column.
struct StorePages: Sendable {
    private let templates: [String: Template]
    private let labels: [StoreLanguage: TemplateValue]
    /// The templates with each language's fixed values (`folding(_:)`) already in as text.
    private var folded: [StoreLanguage: [String: Template]] = [:]
    /// Each language's layout around `{{{body}}}`, when the view can be rendered straight into
    /// the page between the halves (`Template.split(around:)`) instead of passed to it as text.
    private var layoutHalves: [StoreLanguage: (head: Template, tail: Template)] = [:]

    static let helpers = TemplateHelpers.standard
        .adding("money") { call throws(HelperError) in
            // Prices as the store shows them: $1,234.50
            .string(Money.format(cents: Money.cents(call.param(0).text)))
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

    /// A copy whose templates have, in each language, `fixed(language)` and the labels folded in
    /// (`Template.folding`): what every page of that language shows the same. Every context
    /// `render` makes starts with those members (`common`), and views add no member of their names.
    func folding(_ fixed: (StoreLanguage) -> TemplateMembers) -> StorePages {
        var copy = self
        for language in [StoreLanguage.english, .french] {
            let constants = TemplateObject(fixed(language) + [("labels", labels[language] ?? .null)])
            copy.folded[language] = templates.mapValues { $0.folding(constants) }
            copy.layoutHalves[language] = copy.folded[language]?["layout"]?.split(around: "body")
        }
        return copy
    }

    /// `view`'s template over `values`, inside the layout; the labels of `language` are `labels`.
    func render(
        _ view: String, _ values: TemplateMembers, title: String, common: TemplateMembers,
        language: StoreLanguage
    ) -> [UInt8] {
        let labels = self.labels[language] ?? .null
        let templates = folded[language] ?? self.templates
        // Each context made in one array (adding arrays made a new array for every `+`).
        var members = TemplateMembers()
        members.reserveCapacity(common.count + values.count + 2)
        members.append(contentsOf: common)
        members.append(contentsOf: values)
        members.append(("labels", labels))
        members.append(("title", .string(title)))
        let context = TemplateValue.object(TemplateObject(members))
        var layoutMembers = TemplateMembers()
        layoutMembers.reserveCapacity(common.count + 4)
        layoutMembers.append(contentsOf: common)
        layoutMembers.append(("labels", labels))
        layoutMembers.append(("title", .string(title)))
        layoutMembers.append(("view", .string(view)))
        var page = ByteWriter(capacity: 16_384)
        if let (head, tail) = layoutHalves[language] {
            let layoutContext = TemplateValue.object(TemplateObject(layoutMembers))
            head.render(layoutContext, into: &page)
            templates[view]?.render(context, into: &page)
            tail.render(layoutContext, into: &page)
            return page.bytes
        }
        var body = ByteWriter(capacity: 8_192)
        templates[view]?.render(context, into: &body)
        guard let layout = templates["layout"] else { return body.bytes }
        layoutMembers.append(("body", .string(String(decoding: body.bytes, as: UTF8.self))))
        layout.render(.object(TemplateObject(layoutMembers)), into: &page)
        return page.bytes
    }

    /// A label's text, for titles and messages made in code.
    func label(_ key: String, _ language: StoreLanguage) -> String {
        labels[language]?.member(key)?.text ?? labels[.english]?.member(key)?.text ?? key
    }
}
