import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SQLite's LIKE, GLOB (Informix's MATCHES), instr(), replace() and trim()/ltrim()/rtrim()
/// with a character set, replaced by versions whose work a client cannot blow up.
///
/// SQLite checks the progress handler (the statement time limit) only between VM operations,
/// and each of these runs as one operation. Its own versions are quadratic on long values
/// (a LIKE of a few MB against `%aaaa…b` ran for most of a minute while every caller of the
/// scope waited). Here every one of them counts its work and looks at the statement's deadline
/// as it goes (trim() is linear: a set look-up replaces SQLite's scan of the set), so a
/// statement stops within its time limit whatever it calls.
enum BoundedStringFunctions {
    /// Longest LIKE/GLOB pattern, in bytes (SQLite's default is 50 000). Informix clients
    /// send short patterns; long ones only make a match slower.
    static let maxPatternBytes: Int32 = 8_192

    /// The statement's deadline, looked at after every so much work.
    private struct WorkBudget {
        let deadline: UInt64
        private var work = 0

        init(_ context: OpaquePointer?) {
            deadline = sqlite3_user_data(context).map { Unmanaged<ConnectionState>.fromOpaque($0).takeUnretainedValue().deadline } ?? 0
        }

        /// Counts `units` of work (about a byte compared each); false once the deadline passed.
        mutating func spend(_ units: Int) -> Bool {
            work += units
            guard work >= 1 << 16 else { return true }
            work = 0
            return deadline == 0 || ConnectionState.monotonicNanos() <= deadline
        }
    }

    /// What the progress handler does at the deadline: the statement fails with SQLITE_INTERRUPT (-213).
    private static func interrupt(_ context: OpaquePointer?) {
        sqlite3_result_error(context, "interrupted", -1)
        sqlite3_result_error_code(context, SQLITE_INTERRUPT)
    }

    typealias Function = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    static func install(on db: OpaquePointer, context: UnsafeMutableRawPointer) {
        sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, maxPatternBytes)
        let functions: [(String, Int32, Function)] = [
            ("like", 2, like), ("like", 3, like), ("glob", 2, glob),
            ("instr", 2, instr), ("replace", 3, replace),
            ("trim", 2, trimBoth), ("ltrim", 2, trimLeft), ("rtrim", 2, trimRight),
        ]
        for (name, arguments, body) in functions {
            sqlite3_create_function_v2(db, name, arguments, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context, body, nil, nil, nil)
        }
    }

    // MARK: Values

    /// The UTF-8 bytes of a value as SQLite converts it to text; nil for NULL. Valid until the
    /// value is next converted.
    private static func bytes(_ value: OpaquePointer?) -> UnsafeBufferPointer<UInt8>? {
        guard let value, sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        let start = sqlite3_value_text(value)
        let count = Int(sqlite3_value_bytes(value))
        return UnsafeBufferPointer(start: start, count: start == nil ? 0 : count)
    }

    private static func lengthLimit(_ context: OpaquePointer?) -> Int {
        Int(sqlite3_limit(sqlite3_context_db_handle(context), SQLITE_LIMIT_LENGTH, -1))
    }

    /// The character starting at `index` (a lenient UTF-8 decode: SQLite stores what it is given)
    /// and how many bytes it takes.
    private static func character(_ text: UnsafeBufferPointer<UInt8>, _ index: Int) -> (UInt32, Int) {
        let lead = text[index]
        let length = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        var scalar = UInt32(lead) & (length == 1 ? 0xFF : 0x3F >> (length - 1))
        var size = 1
        while size < length, index + size < text.count, text[index + size] & 0xC0 == 0x80 {
            scalar = scalar << 6 | UInt32(text[index + size] & 0x3F)
            size += 1
        }
        return (scalar, size)
    }

    // MARK: LIKE and GLOB

    private enum PatternElement {
        case character(UInt32)
        case anyCharacter
        case anyRun
        case set(ranges: [ClosedRange<UInt32>], negated: Bool)
    }

    /// `X LIKE Y [ESCAPE Z]` is like(Y, X[, Z]). Case-sensitive, as Informix's LIKE.
    private static let like: Function = { context, count, values in
        guard let values else { return }
        var escape: UInt32?
        if count == 3 {
            guard let text = bytes(values[2]) else { return sqlite3_result_null(context) }
            guard !text.isEmpty, character(text, 0).1 == text.count else {
                return sqlite3_result_error(context, "ESCAPE expression must be a single character", -1)
            }
            escape = character(text, 0).0
        }
        match(context, values, glob: false, escape: escape)
    }

    /// `X GLOB Y` is glob(Y, X); MATCHES is translated to GLOB.
    private static let glob: Function = { context, _, values in
        guard let values else { return }
        match(context, values, glob: true, escape: nil)
    }

    private static func match(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>, glob: Bool, escape: UInt32?) {
        guard let patternText = bytes(values[0]) else { return sqlite3_result_null(context) }
        guard patternText.count <= Int(maxPatternBytes) else {
            return sqlite3_result_error(context, "LIKE or GLOB pattern too complex", -1)
        }
        // Parsed before the subject is converted: converting another value may move this one.
        let pattern = glob ? globPattern(patternText) : likePattern(patternText, escape: escape)
        guard let subject = bytes(values[1]) else { return sqlite3_result_null(context) }
        guard let pattern else { return sqlite3_result_int(context, 0) }
        var budget = WorkBudget(context)
        switch matches(subject, pattern, budget: &budget) {
        case true?: sqlite3_result_int(context, 1)
        case false?: sqlite3_result_int(context, 0)
        case nil: interrupt(context)
        }
    }

    private static func likePattern(_ text: UnsafeBufferPointer<UInt8>, escape: UInt32?) -> [PatternElement]? {
        var elements: [PatternElement] = []
        var index = 0
        while index < text.count {
            var (scalar, size) = character(text, index)
            index += size
            if scalar == escape {
                // A trailing escape matches nothing, as in SQLite.
                guard index < text.count else { return nil }
                (scalar, size) = character(text, index)
                index += size
                elements.append(.character(scalar))
            } else if scalar == UInt32(UInt8(ascii: "%")) {
                if case .anyRun? = elements.last { continue }
                elements.append(.anyRun)
            } else if scalar == UInt32(UInt8(ascii: "_")) {
                elements.append(.anyCharacter)
            } else {
                elements.append(.character(scalar))
            }
        }
        return elements
    }

    /// GLOB's `*`, `?` and `[…]` (`[^…]` negated, `a-z` ranges, `]` first is literal). An
    /// unclosed `[` matches nothing, as in SQLite.
    private static func globPattern(_ text: UnsafeBufferPointer<UInt8>) -> [PatternElement]? {
        var elements: [PatternElement] = []
        var index = 0
        while index < text.count {
            let (scalar, size) = character(text, index)
            index += size
            switch scalar {
            case UInt32(UInt8(ascii: "*")):
                if case .anyRun? = elements.last { continue }
                elements.append(.anyRun)
            case UInt32(UInt8(ascii: "?")):
                elements.append(.anyCharacter)
            case UInt32(UInt8(ascii: "[")):
                var ranges: [ClosedRange<UInt32>] = []
                var negated = false
                var closed = false
                var first = true
                var previous: UInt32?
                while index < text.count {
                    var (member, memberSize) = character(text, index)
                    index += memberSize
                    if first && member == UInt32(UInt8(ascii: "^")) && !negated {
                        negated = true
                        continue
                    }
                    if member == UInt32(UInt8(ascii: "]")) && !first {
                        closed = true
                        break
                    }
                    first = false
                    if member == UInt32(UInt8(ascii: "-")), let low = previous, index < text.count, text[index] != UInt8(ascii: "]") {
                        (member, memberSize) = character(text, index)
                        index += memberSize
                        ranges[ranges.count - 1] = low...max(low, member)
                        previous = nil
                        continue
                    }
                    ranges.append(member...member)
                    previous = member
                }
                guard closed else { return nil }
                elements.append(.set(ranges: ranges, negated: negated))
            default:
                elements.append(.character(scalar))
            }
        }
        return elements
    }

    /// Whether `subject` matches `pattern`; nil when the deadline passed first. Greedy with a
    /// return to the last `%`/`*`: at most (subject length × pattern length) steps.
    private static func matches(_ subject: UnsafeBufferPointer<UInt8>, _ pattern: [PatternElement], budget: inout WorkBudget) -> Bool? {
        var position = 0
        var element = 0
        var lastRun: Int?
        var resumeAt = 0
        while position < subject.count {
            guard budget.spend(1) else { return nil }
            let (scalar, size) = character(subject, position)
            if element < pattern.count {
                switch pattern[element] {
                case .anyRun:
                    lastRun = element
                    resumeAt = position
                    element += 1
                    continue
                case .anyCharacter:
                    position += size
                    element += 1
                    continue
                case .character(let expected) where expected == scalar:
                    position += size
                    element += 1
                    continue
                case .set(let ranges, let negated) where ranges.contains(where: { $0.contains(scalar) }) != negated:
                    position += size
                    element += 1
                    continue
                default:
                    break
                }
            }
            // Mismatch: let the last run take one more character, or fail.
            guard let run = lastRun else { return false }
            resumeAt += character(subject, resumeAt).1
            position = resumeAt
            element = run + 1
        }
        while element < pattern.count, case .anyRun = pattern[element] { element += 1 }
        return element == pattern.count
    }

    // MARK: instr, replace

    /// Where `needle` first occurs in `haystack` at or after `start`: nil when nowhere, throws
    /// at the deadline. At most (haystack × needle) bytes compared, counted as it goes.
    private static func find(
        _ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from start: Int,
        budget: inout WorkBudget
    ) throws(Interrupted) -> Int? {
        guard let needleStart = needle.baseAddress, let base = haystack.baseAddress, !needle.isEmpty,
            start <= haystack.count - needle.count
        else { return nil }
        let last = haystack.count - needle.count
        var position = start
        while position <= last {
            guard let hit = memchr(base + position, Int32(needle[0]), last - position + 1) else { return nil }
            position = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
            guard budget.spend(needle.count) else { throw Interrupted() }
            if memcmp(base + position, needleStart, needle.count) == 0 { return position }
            position += 1
        }
        return nil
    }

    private struct Interrupted: Error {}

    /// instr(X, Y): where Y first occurs in X (characters, or bytes for two blobs), 0 if not.
    private static let instr: Function = { context, _, values in
        guard let values, let haystackValue = values[0], let needleValue = values[1],
            sqlite3_value_type(haystackValue) != SQLITE_NULL, sqlite3_value_type(needleValue) != SQLITE_NULL
        else { return }
        let isBlob = sqlite3_value_type(haystackValue) == SQLITE_BLOB && sqlite3_value_type(needleValue) == SQLITE_BLOB
        func content(_ value: OpaquePointer) -> UnsafeBufferPointer<UInt8> {
            let start = isBlob ? sqlite3_value_blob(value)?.assumingMemoryBound(to: UInt8.self) : sqlite3_value_text(value)
            return UnsafeBufferPointer(start: start, count: start == nil ? 0 : Int(sqlite3_value_bytes(value)))
        }
        let haystack = content(haystackValue)
        let needle = content(needleValue)
        guard !needle.isEmpty else { return sqlite3_result_int64(context, 1) }
        var budget = WorkBudget(context)
        let offset: Int?
        do {
            offset = try find(needle, in: haystack, from: 0, budget: &budget)
        } catch {
            return interrupt(context)
        }
        guard let offset else { return sqlite3_result_int64(context, 0) }
        guard !isBlob else { return sqlite3_result_int64(context, Int64(offset + 1)) }
        // Characters before it: every byte that does not continue a UTF-8 sequence starts one.
        sqlite3_result_int64(context, Int64(haystack[..<offset].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }))
    }

    /// replace(X, Y, Z): every Y in X becomes Z.
    private static let replace: Function = { context, _, values in
        // Each argument is its own value: converting one leaves the others' bytes in place.
        guard let values, let source = bytes(values[0]), let pattern = bytes(values[1]) else { return }
        guard !pattern.isEmpty else { return sqlite3_result_value(context, values[0]) }
        guard let replacement = bytes(values[2]) else { return }
        let limit = lengthLimit(context)
        var budget = WorkBudget(context)
        var result: [UInt8] = []
        result.reserveCapacity(min(source.count, limit))
        var start = 0
        do {
            while result.count <= limit, let found = try find(pattern, in: source, from: start, budget: &budget) {
                result += source[start..<found]
                result += replacement
                start = found + pattern.count
            }
        } catch {
            return interrupt(context)
        }
        if start < source.count { result += source[start...] }
        guard result.count <= limit else { return sqlite3_result_error_toobig(context) }
        result.withUnsafeBufferPointer { resultText(context, $0) }
    }

    private static func resultText(_ context: OpaquePointer?, _ text: UnsafeBufferPointer<UInt8>) {
        guard let start = text.baseAddress, !text.isEmpty else { return sqlite3_result_text(context, "", 0, understudy_sqlite_transient()) }
        start.withMemoryRebound(to: CChar.self, capacity: text.count) {
            sqlite3_result_text64(context, $0, UInt64(text.count), understudy_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }

    // MARK: trim with a set

    private static let trimBoth: Function = { context, _, values in trim(context, values, left: true, right: true) }
    private static let trimLeft: Function = { context, _, values in trim(context, values, left: true, right: false) }
    private static let trimRight: Function = { context, _, values in trim(context, values, left: false, right: true) }

    /// trim(X, Y): X without the characters of Y at its ends. SQLite compares every character
    /// of X with every one of Y; a set makes it one look-up each.
    private static func trim(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?, left: Bool, right: Bool) {
        guard let values, let all = bytes(values[0]), let setText = bytes(values[1]) else { return }
        var set = Set<UInt32>()
        var index = 0
        while index < setText.count {
            let (scalar, size) = character(setText, index)
            set.insert(scalar)
            index += size
        }
        var start = 0
        var end = all.count
        while left, start < end {
            let (scalar, size) = character(all, start)
            guard set.contains(scalar) else { break }
            start += size
        }
        while right, start < end {
            var first = end - 1
            while first > start, all[first] & 0xC0 == 0x80 { first -= 1 }
            guard set.contains(character(all, first).0) else { break }
            end = first
        }
        resultText(context, UnsafeBufferPointer(rebasing: all[start..<end]))
    }
}
