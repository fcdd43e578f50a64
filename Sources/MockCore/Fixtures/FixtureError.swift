import Foundation
import JSON

/// A problem with a fixture or configuration file, with where it is: the line of a syntax
/// error, or the field it concerns in the message.
public struct FixtureError: Error, CustomStringConvertible, Equatable, Sendable {
    public let file: String
    /// 0 when the message names the field instead.
    public let line: Int
    public let message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, or `file: message` when no line is known (a field of a JSON file).
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }

    /// Reads an emulator's `config.json`: nil when the file is absent, the object otherwise, a
    /// syntax error with its line, a top level that is not an object as a problem.
    public static func configuration(at url: URL) throws(FixtureError) -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(data))
        } catch {
            throw FixtureError(file: url.path, line: error.line, message: error.message)
        }
        guard json.objectValue != nil else { throw FixtureError(file: url.path, line: 0, message: "(top level): must be an object") }
        return json
    }

    /// A problem with `field` of the file at `url`.
    public static func field(_ url: URL, _ field: String, _ message: String) -> FixtureError {
        FixtureError(file: url.path, line: 0, message: "\(field): \(message)")
    }

    /// A configuration's `key` as a whole number ≥ `minimum`; nil when the key is absent.
    public static func wholeNumber(_ json: JSONValue, _ key: String, in file: URL, atLeast minimum: Int = 0) throws(FixtureError) -> Int? {
        guard let value = json[key] else { return nil }
        guard let number = value.intValue, number >= minimum else { throw field(file, key, "must be a whole number ≥ \(minimum)") }
        return number
    }
}

/// A fixture file decoded into `T`: a syntax error is reported with its line (from the project's
/// JSON parser), a decoding error with the field it concerns (`products[3].price: missing`).
public enum FixtureJSON {
    public static func decode<T: Decodable>(_ url: URL) throws(FixtureError) -> T {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FixtureError(file: url.path, line: 0, message: "missing")
        }
        do {
            _ = try JSONValue.parse(Array(data))
        } catch {
            throw FixtureError(file: url.path, line: error.line, message: error.message)
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw problem(url, context.codingPath + [key], "missing")
        } catch let DecodingError.typeMismatch(type, context) {
            throw problem(url, context.codingPath, "expected \(type)")
        } catch let DecodingError.valueNotFound(type, context) {
            throw problem(url, context.codingPath, "expected \(type), found null")
        } catch let DecodingError.dataCorrupted(context) {
            throw problem(url, context.codingPath, context.debugDescription)
        } catch {
            throw FixtureError(file: url.path, line: 0, message: "\(error)")
        }
    }

    private static func problem(_ url: URL, _ keys: [any CodingKey], _ message: String) -> FixtureError {
        let path = keys.reduce("") { path, key in
            if let index = key.intValue { return path + "[\(index)]" }
            return path.isEmpty ? key.stringValue : path + "." + key.stringValue
        }
        return path.isEmpty ? FixtureError(file: url.path, line: 0, message: message) : FixtureError.field(url, path, message)
    }
}
