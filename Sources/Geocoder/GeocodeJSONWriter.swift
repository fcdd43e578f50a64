import Foundation
import WireFormat

/// Google's JSON layout: keys in alphabetical order at every level, three spaces of indentation,
/// `" : "` between key and value, arrays of strings on one line (`[ "locality", "political" ]`),
/// an empty array as `[]`, numbers in their shortest round-trip form (at most 16 digits).
enum GeocodeJSONWriter {
    static func write(_ answer: GeocodeAnswer) -> [UInt8] {
        var out = ByteWriter(capacity: 1_024 + 2_560 * answer.count)
        out.write("{\n")
        if let message = answer.errorMessage {
            out.write("   \"error_message\" : ")
            quoted(message, to: &out)
            out.write(",\n")
        }
        if answer.count == 0 {
            out.write("   \"results\" : [],\n")
        } else {
            out.write("   \"results\" : [\n")
            var first = true
            write(answer.results, first: &first, to: &out)
            write(answer.places, first: &first, to: &out)
            out.write("\n   ],\n")
        }
        out.write("   \"status\" : \"")
        out.write(answer.status.rawValue)
        out.write("\"\n}\n")
        return out.bytes
    }

    /// Results, each after a comma but the first of the answer.
    private static func write(_ results: [some GeocodeResultFields], first: inout Bool, to out: inout ByteWriter) {
        for result in results {
            if !first { out.write(",\n") }
            first = false
            write(result, to: &out)
        }
    }

    private static func write(_ result: some GeocodeResultFields, to out: inout ByteWriter) {
        if result.hasComponents {
            out.write("      {\n         \"address_components\" : [\n")
            var first = true
            result.forEachComponent { component in
                out.write(first ? "            {\n               \"long_name\" : \"" : ",\n            {\n               \"long_name\" : \"")
                first = false
                escaped(component.longName, to: &out)
                out.write("\",\n               \"short_name\" : \"")
                escaped(component.shortName, to: &out)
                out.write("\",\n               \"types\" : ")
                strings(component.types, to: &out)
                out.write("\n            }")
            }
            out.write("\n         ],\n         \"formatted_address\" : \"")
        } else {
            out.write("      {\n         \"address_components\" : [],\n         \"formatted_address\" : \"")
        }
        escaped(result.formattedAddress, to: &out)
        out.write("\",\n         \"geometry\" : {\n")
        let (viewport, bounds) = result.geometry
        if let bounds { box("bounds", bounds, last: false, to: &out) }
        out.write("            \"location\" : {\n")
        point(result.location, corner: false, to: &out)
        out.write("            },\n            \"location_type\" : \"")
        result.locationType.write(to: &out)
        out.write("\",\n")
        box("viewport", viewport, last: true, to: &out)
        out.write("         },\n")
        if result.partialMatch { out.write("         \"partial_match\" : true,\n") }
        out.write("         \"place_id\" : \"")
        escaped(result.placeID, to: &out)
        out.write("\",\n         \"types\" : ")
        strings(result.types, to: &out)
        out.write("\n      }")
    }

    private static func box(_ name: StaticString, _ box: Box, last: Bool, to out: inout ByteWriter) {
        out.write("            \"")
        out.write(name)
        out.write("\" : {\n               \"northeast\" : {\n")
        point(box.northeast, corner: true, to: &out)
        out.write("               },\n               \"southwest\" : {\n")
        point(box.southwest, corner: true, to: &out)
        out.write(last ? "               }\n            }\n" : "               }\n            },\n")
    }

    /// The `"lat"` and `"lng"` lines of a point: a location's, or a corner's (deeper).
    private static func point(_ point: Coordinate, corner: Bool, to out: inout ByteWriter) {
        out.write(corner ? "                  \"lat\" : " : "               \"lat\" : ")
        out.number(point.lat)
        out.write(corner ? ",\n                  \"lng\" : " : ",\n               \"lng\" : ")
        out.number(point.lng)
        out.write("\n")
    }

    /// A number as the JSON writes it (`ByteWriter.number`).
    static func number(_ value: Double) -> String {
        var out = ByteWriter(capacity: 32)
        out.number(value)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// `[ "a", "b" ]`; the quotes are written with the separators (a few pieces fewer a list).
    private static func strings(_ values: [some ResultText], to out: inout ByteWriter) {
        guard !values.isEmpty else { return out.write("[]") }
        out.write("[ \"")
        for (index, value) in values.enumerated() {
            if index > 0 { out.write("\", \"") }
            escaped(value, to: &out)
        }
        out.write("\" ]")
    }

    private static func quoted(_ text: some ResultText, to out: inout ByteWriter) {
        out.write("\"")
        escaped(text, to: &out)
        out.write("\"")
    }

    /// A string's text without its quotes: the literals around it carry them.
    private static func escaped(_ text: some ResultText, to out: inout ByteWriter) {
        text.write(escapedBy: .jsonUnicodeControls, to: &out)
    }
}
