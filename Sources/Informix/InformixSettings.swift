import Foundation
import JSON
import MockCore

/// A problem with a file of `stubs/informix/`, with where it is.
public typealias InformixFixtureError = FixtureError

/// `stubs/informix/config.json`: where the services are, the PHP they ran on, and the server's
/// settings. Every key is optional (`mounts` was called `services` before).
///
/// ```json
/// { "mounts": { "generic": "/informix/generic.php", "query": "/informix/generic2.php",
///                 "customers": "/custdemoapp/service.php" },
///   "php": "5.3", "displayErrors": false, "magicQuotesGpc": false, "documentRoot": "/var/www/html",
///   "columnCase": "upper", "rootElement": "root",
///   "dbdate": "Y4MD-", "dateOutput": "Y4MD-", "user": "informix", "database": "stores_demo",
///   "now": "2011-09-14T12:00:00Z", "responseCache": 256,
///   "limits": { "statementBytes": 65535, "milliseconds": 2000, "rows": 100000, "resultBytes": 67108864,
///               "databaseBytes": 268435456, "responseCacheBytes": 67108864 } }
/// ```
public struct InformixSettings: EmulatorSettings {
    var services: [PHPScripts.Service: String] = [
        .generic: "/informix/generic.php",
        .query: "/informix/generic2.php",
        .customers: "/custdemoapp/service.php",
    ]
    var runtime = PHPRuntime()
    var columnCase = PHPScripts.ColumnCase.upper
    var rootElement = "root"
    var dateOutput = DBDateFormat.iso
    var database = DatabaseSettings()
    /// Answers kept for repeated read-only requests while the database is unchanged; 0: none.
    /// Counted over all scopes together.
    var responseCache = 256
    /// Most bytes those answers may take, over all scopes together (the least recently used
    /// go first).
    var responseCacheBytes = 64 * 1024 * 1024

    public init() {}

    public mutating func read(_ json: JSONValue, in file: URL) throws(FixtureError) {
        func problem(_ field: String, _ message: String) -> FixtureError { .field(file, field, message) }
        func text(_ field: String) throws(InformixFixtureError) -> String? {
            guard let value = json[field] else { return nil }
            guard let text = value.stringValue else { throw problem(field, "must be a string") }
            return text
        }
        func flag(_ field: String) throws(InformixFixtureError) -> Bool? {
            guard let value = json[field] else { return nil }
            guard case .bool(let flag) = value else { throw problem(field, "must be true or false") }
            return flag
        }
        if let services = try Self.mounts(in: json, formerly: "services", file: file) {
            guard let members = services.objectValue else { throw problem("mounts", "must be an object of service → path") }
            for (name, value) in members {
                guard let service = PHPScripts.Service(rawValue: name) else {
                    throw problem("mounts.\(name)", "unknown service (generic, query, customers)")
                }
                self.services[service] = try Self.mountPath(value, field: "mounts.\(name)", file: file)
            }
        }
        if let version = try text("php") {
            guard let parsed = PHPRuntime.Version(rawValue: version) else { throw problem("php", "must be \"5.3\", \"7\" or \"8\"") }
            runtime.version = parsed
        }
        runtime.displayErrors = try flag("displayErrors") ?? runtime.displayErrors
        runtime.magicQuotesGPC = try flag("magicQuotesGpc") ?? runtime.magicQuotesGPC
        if let root = try text("documentRoot") { runtime.documentRoot = root }
        if let value = try text("columnCase") {
            guard let parsed = PHPScripts.ColumnCase(rawValue: value) else { throw problem("columnCase", "must be upper, natural or lower") }
            columnCase = parsed
        }
        if let root = try text("rootElement") {
            guard !root.isEmpty else { throw problem("rootElement", "must not be empty") }
            rootElement = root
        }
        if let value = try text("dbdate") {
            guard let format = DBDateFormat(value) else { throw problem("dbdate", "not a DBDATE value such as Y4MD- or MDY4/") }
            database.dateFormat = format
        }
        if let value = try text("dateOutput") {
            guard let format = DBDateFormat(value) else { throw problem("dateOutput", "not a DBDATE value such as Y4MD- or MDY4/") }
            dateOutput = format
        }
        if let user = try text("user") { database.user = user }
        if let name = try text("database") { database.databaseName = name }
        if let now = try text("now") {
            guard let instant = ISO8601DateFormatter().date(from: now) else {
                throw problem("now", "must be an ISO 8601 instant such as 2011-09-14T12:00:00Z")
            }
            database.fixedNow = instant.timeIntervalSince1970
        }
        if let cache = json["responseCache"] {
            guard let count = cache.intValue, count >= 0 else { throw problem("responseCache", "must be a whole number ≥ 0") }
            responseCache = count
        }
        if let limits = json["limits"] {
            guard limits.objectValue != nil else { throw problem("limits", "must be an object") }
            for name in ["statementBytes", "milliseconds", "rows", "resultBytes", "databaseBytes", "responseCacheBytes"] {
                guard let value = limits[name] else { continue }
                guard let number = value.intValue, number >= 1 else { throw problem("limits.\(name)", "must be a whole number ≥ 1") }
                switch name {
                case "statementBytes": database.maxStatementBytes = number
                case "milliseconds": database.timeLimit = .milliseconds(number)
                case "rows": database.maxRows = number
                case "resultBytes": database.maxResultBytes = number
                case "databaseBytes": database.maxDatabaseBytes = number
                default: responseCacheBytes = number
                }
            }
        }
    }
}
