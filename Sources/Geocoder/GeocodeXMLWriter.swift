import WireFormat

/// Google's XML layout: declaration, `<GeocodeResponse>`, one space of indentation per level,
/// one element per line, `<type>`s first in a result, `southwest` before `northeast`, lat/lng with
/// exactly 7 decimals, `partial_match` before `place_id`. Legacy clients scrape this line by line.
enum GeocodeXMLWriter {
    static func write(_ answer: GeocodeAnswer) -> [UInt8] {
        var out = ByteWriter(capacity: 1_024 + 1_536 * answer.count)
        out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<GeocodeResponse>\n")
        element("status", answer.status.rawValue, level: 1, to: &out)
        if let message = answer.errorMessage { element("error_message", message, level: 1, to: &out) }
        for result in answer.results { write(result, to: &out) }
        for place in answer.places { write(place, to: &out) }
        out.write("</GeocodeResponse>\n")
        return out.bytes
    }

    private static func write(_ result: some GeocodeResultFields, to out: inout ByteWriter) {
        out.write(" <result>\n")
        for type in result.types { element("type", type, level: 2, to: &out) }
        element("formatted_address", result.formattedAddress, level: 2, to: &out)
        result.forEachComponent { component in
            out.write("  <address_component>\n")
            element("long_name", component.longName, level: 3, to: &out)
            element("short_name", component.shortName, level: 3, to: &out)
            for type in component.types { element("type", type, level: 3, to: &out) }
            out.write("  </address_component>\n")
        }
        out.write("  <geometry>\n")
        point("location", result.location, level: 3, to: &out)
        element("location_type", result.locationType, level: 3, to: &out)
        let (viewport, bounds) = result.geometry
        box("viewport", viewport, to: &out)
        if let bounds { box("bounds", bounds, to: &out) }
        out.write("  </geometry>\n")
        if result.partialMatch { out.write("  <partial_match>true</partial_match>\n") }
        element("place_id", result.placeID, level: 2, to: &out)
        out.write(" </result>\n")
    }

    private static func box(_ name: StaticString, _ box: Box, to out: inout ByteWriter) {
        out.write("   <")
        out.write(name)
        out.write(">\n")
        point("southwest", box.southwest, level: 4, to: &out)
        point("northeast", box.northeast, level: 4, to: &out)
        out.write("   </")
        out.write(name)
        out.write(">\n")
    }

    private static func point(_ name: StaticString, _ point: Coordinate, level: Int, to out: inout ByteWriter) {
        out.spaces(level)
        out.write("<")
        out.write(name)
        out.write(">\n")
        out.spaces(level)
        out.write(" <lat>")
        out.sevenDecimals(point.lat)
        out.write("</lat>\n")
        out.spaces(level)
        out.write(" <lng>")
        out.sevenDecimals(point.lng)
        out.write("</lng>\n")
        out.spaces(level)
        out.write("</")
        out.write(name)
        out.write(">\n")
    }

    private static func element(_ name: StaticString, _ text: some ResultText, level: Int, to out: inout ByteWriter) {
        out.spaces(level)
        out.write("<")
        out.write(name)
        out.write(">")
        text.write(escapedBy: .xmlMarkup, to: &out)
        out.write("</")
        out.write(name)
        out.write(">\n")
    }

    /// `-122.0300000`, as text (the writer appends the same digits without one).
    static func sevenDecimals(_ value: Double) -> String {
        var out = ByteWriter(capacity: 16)
        out.sevenDecimals(value)
        return String(decoding: out.bytes, as: UTF8.self)
    }
}
