import Foundation

/// Google's JSON layout: keys in alphabetical order at every level, three spaces of indentation,
/// `" : "` between key and value, arrays of strings on one line (`[ "locality", "political" ]`),
/// an empty array as `[]`, numbers in their shortest round-trip form.
enum GeocodeJSONWriter {
    static func write(_ answer: GeocodeAnswer) -> String {
        var out = "{\n"
        if let message = answer.errorMessage { out += "   \"error_message\" : " + quoted(message) + ",\n" }
        if answer.results.isEmpty {
            out += "   \"results\" : [],\n"
        } else {
            out += "   \"results\" : [\n"
            for (index, result) in answer.results.enumerated() {
                write(result, to: &out)
                out += index < answer.results.count - 1 ? ",\n" : "\n"
            }
            out += "   ],\n"
        }
        out += "   \"status\" : \"" + answer.status.rawValue + "\"\n}\n"
        return out
    }

    private static func write(_ result: GeocodeResult, to out: inout String) {
        let i3 = "         ", i4 = "            ", i5 = "               "
        out += "      {\n"
        out += i3 + "\"address_components\" : [\n"
        for (index, component) in result.components.enumerated() {
            out += i4 + "{\n"
            out += i5 + "\"long_name\" : " + quoted(component.longName) + ",\n"
            out += i5 + "\"short_name\" : " + quoted(component.shortName) + ",\n"
            out += i5 + "\"types\" : " + strings(component.types) + "\n"
            out += i4 + (index < result.components.count - 1 ? "},\n" : "}\n")
        }
        out += i3 + "],\n"
        out += i3 + "\"formatted_address\" : " + quoted(result.formattedAddress) + ",\n"
        out += i3 + "\"geometry\" : {\n"
        if let bounds = result.bounds { box("bounds", bounds, to: &out) }
        point("location", result.location, indent: i4, to: &out)
        out += ",\n" + i4 + "\"location_type\" : \"" + result.locationType + "\",\n"
        box("viewport", result.viewport, last: true, to: &out)
        out += i3 + "},\n"
        if result.partialMatch { out += i3 + "\"partial_match\" : true,\n" }
        out += i3 + "\"place_id\" : " + quoted(result.placeID) + ",\n"
        out += i3 + "\"types\" : " + strings(result.types) + "\n"
        out += "      }"
    }

    private static func box(_ name: String, _ box: Box, last: Bool = false, to out: inout String) {
        let i4 = "            ", i5 = "               "
        out += i4 + "\"" + name + "\" : {\n"
        point("northeast", box.northeast, indent: i5, to: &out)
        out += ",\n"
        point("southwest", box.southwest, indent: i5, to: &out)
        out += "\n" + i4 + (last ? "}\n" : "},\n")
    }

    /// `"name" : { "lat" : …, "lng" : … }` over four lines, without the line's ending.
    private static func point(_ name: String, _ point: Coordinate, indent: String, to out: inout String) {
        out += indent + "\"" + name + "\" : {\n"
        out += indent + "   \"lat\" : " + number(point.lat) + ",\n"
        out += indent + "   \"lng\" : " + number(point.lng) + "\n"
        out += indent + "}"
    }

    /// The shortest digits that read back as the value, but at most 16 significant ones, as
    /// Google prints them (`38.8990252802915` where the shortest form is `38.899025280291504`);
    /// never in exponent form (Swift writes 1e-05 for 0.00001).
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        guard abs(value) >= 1e-4 else { return GeocodeXMLWriter.sevenDecimals(value).replacingZeroTail() }
        let shortest = "\(value)"
        guard shortest.utf8.count > 17, shortest.utf8.filter({ (0x30...0x39).contains($0) }).count > 16 else { return shortest }
        return String(format: "%.16g", value).replacingZeroTail()
    }

    private static func strings(_ values: [String]) -> String {
        values.isEmpty ? "[]" : "[ " + values.map(quoted).joined(separator: ", ") + " ]"
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.utf8.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

private extension String {
    /// `0.0000100` → `0.00001`.
    func replacingZeroTail() -> String {
        var text = self
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
