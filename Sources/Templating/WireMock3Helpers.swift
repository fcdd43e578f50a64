import JSON
import WorkLimits

/// Helpers WireMock 3 added to 2.35's, under its names and with its error texts: `arrayAdd`,
/// `arrayRemove` and `arrayJoin` (lists; `#arrayJoin` as a block is the renderer's), `jsonMerge`
/// (JSON objects).
extension TemplateHelpers {
    static let wireMock3 = TemplateHelpers(
        [
            // `{{arrayAdd list value position='start'|'end'|n}}`: a new list (the end by default).
            "arrayAdd": { call throws(HelperError) in
                guard case .array(let items) = listParameter(call) else { return .array([]) }
                guard call.params.count > 1 else { throw HelperError("Missing required parameter: additional value to add to list") }
                var list = items
                guard let position = try position(call) else { return .array(list + [call.params[1]]) }
                guard (0...list.count).contains(position) else {
                    throw HelperError("position must be greater than or equal to 0 and less than or equal to the size of the list")
                }
                list.insert(call.params[1], at: position)
                return .array(list)
            },
            // `{{arrayRemove list position=n}}`: a new list without the item at `position` (the last by default).
            "arrayRemove": { call throws(HelperError) in
                guard case .array(let items) = listParameter(call) else { throw HelperError("arrayRemove needs a list") }
                var list = items
                let position = try position(call)
                if let position, position < 0 || position > list.count {
                    throw HelperError("position must be greater than or equal to 0 and less than or equal to the size of the list")
                }
                let index = position ?? list.count - 1
                guard list.indices.contains(index) else { throw HelperError("there is no item at position \(index) of the list") }
                list.remove(at: index)
                return .array(list)
            },
            // `{{arrayJoin ',' list prefix='[' suffix=']'}}` or `{{arrayJoin ',' a b c}}`: the items'
            // text with the separator between (nothing at all for an empty list).
            "arrayJoin": { call throws(HelperError) in
                let join = try ArrayJoin(call.params, prefix: call.hash["prefix"], suffix: call.hash["suffix"])
                return join.items.isEmpty
                    ? .string("") : .string(join.prefix + join.items.map(\.text).joined(separator: join.separator) + join.suffix)
            },
            // `{{jsonMerge base other}}` or `{{#jsonMerge base}}other{{/jsonMerge}}`: `other`'s members
            // over `base`'s, objects merged recursively; `removeNulls=true` drops the members `other`
            // sets to null.
            "jsonMerge": { call throws(HelperError) in
                guard case .string(let baseText) = call.param(0) else { throw HelperError("Base JSON parameter must be a string") }
                guard let base = try? JSONValue.parse(baseText) else { throw HelperError("Base JSON is not valid JSON ('\(baseText)')") }
                guard case .object(let baseMembers) = base else { throw HelperError("Base JSON is not a JSON object ('\(baseText)')") }
                let other = call.block.map(TemplateValue.string) ?? call.param(1)
                guard case .string(let otherText) = other else { throw HelperError("JSON to merge must be a string") }
                guard let parsed = try? JSONValue.parse(otherText) else { throw HelperError("JSON to merge is not valid JSON ('\(otherText)')") }
                guard case .object(let otherMembers) = parsed else { throw HelperError("JSON to merge is not a JSON object ('\(otherText)')") }
                let removeNulls = call.hash["removeNulls"]?.isTruthy ?? false
                return .string(JSONValue.object(try merge(otherMembers, into: baseMembers, removeNulls: removeNulls)).serialized)
            },
        ], takingBlocks: ["jsonMerge"])

    /// The list a list helper works on: an array, or the items of a list-like value.
    private static func listParameter(_ call: HelperCall) -> TemplateValue {
        switch call.param(0) {
        case .array(let items): .array(items)
        case .null: .null
        case let value: value.listItems.map(TemplateValue.array) ?? value
        }
    }

    /// The `position` option: nil for the end (the default), 0 for `start`, else a whole number.
    private static func position(_ call: HelperCall) throws(HelperError) -> Int? {
        guard let option = call.hash["position"] else { return nil }
        switch option.text.lowercased() {
        case "end": return nil
        case "start": return 0
        case let text:
            guard let number = Int(text) else { throw HelperError("position must be 'start', 'end' or an integer") }
            return number
        }
    }

    /// Members of `other` over those of `base`, in `base`'s order with new ones after (as
    /// Jackson's object node keeps them); objects in both are merged in turn. Keys are found by
    /// hashing, so that merging large objects stays linear.
    private static func merge(
        _ other: [(String, JSONValue)], into base: [(String, JSONValue)], removeNulls: Bool
    ) throws(HelperError) -> [(String, JSONValue)] {
        // A removed member leaves a hole, so that the positions of the others stay as indexed.
        var merged: [(String, JSONValue)?] = base
        var positions = Dictionary(base.enumerated().map { ($0.element.0, $0.offset) }, uniquingKeysWith: { first, _ in first })
        for (key, value) in other {
            guard RequestBudget.spend(in: "jsonMerge") else { throw HelperError.budgetExceeded(in: "jsonMerge") }
            let index = positions[key]
            if removeNulls, case .null = value {
                if let index {
                    merged[index] = nil
                    positions[key] = nil
                }
                continue
            }
            var replacement = value
            if case .object(let inner) = value, let index, case .object(let existing)? = merged[index]?.1 {
                replacement = .object(try merge(inner, into: existing, removeNulls: removeNulls))
            } else if removeNulls, case .object(let inner) = value {
                replacement = .object(try merge(inner, into: [], removeNulls: true))
            }
            if let index {
                merged[index] = (merged[index]?.0 ?? key, replacement)
            } else {
                positions[key] = merged.count
                merged.append((key, replacement))
            }
        }
        return merged.compactMap { $0 }
    }
}

/// What `arrayJoin` joins, as WireMock 3's `JoinHelper` reads its parameters: a separator, then one
/// list or the values to join; `prefix` and `suffix` around a join that is not empty.
struct ArrayJoin {
    let separator: String
    let items: [TemplateValue]
    let prefix: String
    let suffix: String

    init(_ parameters: [TemplateValue], prefix: TemplateValue?, suffix: TemplateValue?) throws(HelperError) {
        guard case .string(let separator) = parameters.first else { throw HelperError("Separator parameter must be a String") }
        guard parameters.count > 1 else { throw HelperError("The parameter must be list") }
        self.separator = separator
        items = parameters.count == 2 ? parameters[1].listItems ?? [parameters[1]] : Array(parameters.dropFirst())
        self.prefix = prefix?.text ?? ""
        self.suffix = suffix?.text ?? ""
    }
}
