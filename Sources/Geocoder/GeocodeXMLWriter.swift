/// Google's XML layout: declaration, `<GeocodeResponse>`, one space of indentation per level,
/// one element per line, `<type>`s first in a result, `southwest` before `northeast`, lat/lng with
/// exactly 7 decimals, `partial_match` before `place_id`. Legacy clients scrape this line by line.
enum GeocodeXMLWriter {
    static func write(_ answer: GeocodeAnswer) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<GeocodeResponse>\n"
        element("status", answer.status.rawValue, level: 1, to: &out)
        if let message = answer.errorMessage { element("error_message", message, level: 1, to: &out) }
        for result in answer.results { write(result, to: &out) }
        out += "</GeocodeResponse>\n"
        return out
    }

    private static func write(_ result: GeocodeResult, to out: inout String) {
        out += " <result>\n"
        for type in result.types { element("type", type, level: 2, to: &out) }
        element("formatted_address", result.formattedAddress, level: 2, to: &out)
        for component in result.components {
            out += "  <address_component>\n"
            element("long_name", component.longName, level: 3, to: &out)
            element("short_name", component.shortName, level: 3, to: &out)
            for type in component.types { element("type", type, level: 3, to: &out) }
            out += "  </address_component>\n"
        }
        out += "  <geometry>\n"
        point("location", result.location, level: 3, to: &out)
        element("location_type", result.locationType, level: 3, to: &out)
        box("viewport", result.viewport, to: &out)
        if let bounds = result.bounds { box("bounds", bounds, to: &out) }
        out += "  </geometry>\n"
        if result.partialMatch { element("partial_match", "true", level: 2, to: &out) }
        element("place_id", result.placeID, level: 2, to: &out)
        out += " </result>\n"
    }

    private static func box(_ name: String, _ box: Box, to out: inout String) {
        out += "   <\(name)>\n"
        point("southwest", box.southwest, level: 4, to: &out)
        point("northeast", box.northeast, level: 4, to: &out)
        out += "   </\(name)>\n"
    }

    private static func point(_ name: String, _ point: Coordinate, level: Int, to out: inout String) {
        let indent = String(repeating: " ", count: level)
        out += indent + "<" + name + ">\n"
        out += indent + " <lat>" + sevenDecimals(point.lat) + "</lat>\n"
        out += indent + " <lng>" + sevenDecimals(point.lng) + "</lng>\n"
        out += indent + "</" + name + ">\n"
    }

    private static func element(_ name: String, _ text: String, level: Int, to out: inout String) {
        out += String(repeating: " ", count: level) + "<" + name + ">"
        escape(text, to: &out)
        out += "</" + name + ">\n"
    }

    private static func escape(_ text: String, to out: inout String) {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else {
            out += text
            return
        }
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
    }

    /// `-122.0300000`: fixed point, 7 decimals, without Foundation's slow `String(format:)`.
    static func sevenDecimals(_ value: Double) -> String {
        let scaled = Int64((abs(value) * 1e7).rounded())
        let whole = scaled / 10_000_000, fraction = String(scaled % 10_000_000)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return sign + String(whole) + "." + String(repeating: "0", count: 7 - fraction.utf8.count) + fraction
    }
}
