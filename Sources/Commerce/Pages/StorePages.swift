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

/// Prices as decimal text and as the store shows them.
enum Money {
    static func format(_ amount: Decimal) -> String {
        format(cents: roundedCents(amount))
    }

    /// Decimal text ("1234.5", "-3.99", "12") as cents, by hand: this runs for every price on a
    /// page. Anything else is read as a `Decimal`.
    static func cents(_ text: String) -> Int {
        var utf8 = Substring(text).utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        var whole = 0
        var fraction = 0
        var fractionDigits = 0
        var seenPoint = false
        for byte in utf8 {
            if byte == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
                continue
            }
            guard byte >= 0x30 && byte <= 0x39, whole < Int.max / 100, fractionDigits < 2 || !seenPoint else {
                return roundedCents(Decimal(string: text) ?? 0)
            }
            if seenPoint {
                fraction = fraction * 10 + Int(byte - 0x30)
                fractionDigits += 1
            } else {
                whole = whole * 10 + Int(byte - 0x30)
            }
        }
        let cents = whole * 100 + (fractionDigits == 1 ? fraction * 10 : fraction)
        return negative ? -cents : cents
    }

    /// `$1,234.50`, written backwards into a small buffer and made a String once (a price this
    /// short is stored inside the String value: no allocation), where building it from pieces of
    /// String cost about 1,500 instructions.
    static func format(cents: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buffer in
            var start = buffer.count
            func prepend(_ byte: UInt8) {
                start -= 1
                buffer[start] = byte
            }
            let magnitude = cents.magnitude
            prepend(UInt8(ascii: "0") + UInt8(magnitude % 10))
            prepend(UInt8(ascii: "0") + UInt8(magnitude / 10 % 10))
            prepend(UInt8(ascii: "."))
            var dollars = magnitude / 100
            var digits = 0
            repeat {
                if digits > 0, digits % 3 == 0 { prepend(UInt8(ascii: ",")) }
                prepend(UInt8(ascii: "0") + UInt8(dollars % 10))
                dollars /= 10
                digits += 1
            } while dollars > 0
            prepend(UInt8(ascii: "$"))
            if cents < 0 { prepend(UInt8(ascii: "-")) }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
        }
    }

    /// `12.5` → `"12.50"`.
    /// The amount in cents, half a cent rounded away from zero.
    static func roundedCents(_ amount: Decimal) -> Int {
        let handler = NSDecimalNumberHandler(
            roundingMode: .plain, scale: 0, raiseOnExactness: false, raiseOnOverflow: false,
            raiseOnUnderflow: false, raiseOnDivideByZero: false)
        return NSDecimalNumber(decimal: amount * 100).rounding(accordingToBehavior: handler).intValue
    }

    static func plain(_ amount: Decimal) -> String {
        let cents = roundedCents(amount)
        return (cents < 0 ? "-" : "") + String(abs(cents) / 100) + "." + String(abs(cents) % 100).leftPadded(to: 2)
    }
}
