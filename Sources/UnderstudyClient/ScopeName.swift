import Foundation

/// The server's rule for scope names (1 to 64 letters, digits, `.`, `_` and `-`, starting with a
/// letter or a digit), and names made from a test's.
enum ScopeName {
    static let maxLength = 64

    static func check(_ name: String) throws {
        guard !name.isEmpty, name.utf8.count <= maxLength else {
            throw UnderstudyError.invalidScopeName(name, reason: "a name has 1 to \(maxLength) characters")
        }
        guard name.unicodeScalars.allSatisfy(isAllowed) else {
            throw UnderstudyError.invalidScopeName(name, reason: "only letters, digits, '.', '_' and '-' are allowed")
        }
        guard let first = name.unicodeScalars.first, isLetterOrDigit(first) else {
            throw UnderstudyError.invalidScopeName(name, reason: "a name starts with a letter or a digit")
        }
    }

    /// `CartTests.testCheckout-3f9a1c02` from `#fileID` `MyAppTests/CartTests.swift` and `#function`
    /// `testCheckout()`, or from XCTest's `name` (`-[CartTests testCheckout]` on Apple platforms,
    /// `CartTests.testCheckout` on Linux): readable in the dashboard, unique per call.
    static func unique(test: String, file: String) -> String {
        var parts: [String]
        if test.hasPrefix("-["), test.hasSuffix("]") {
            parts = test.dropFirst(2).dropLast().split(separator: " ", maxSplits: 1).map(String.init)
        } else if test.contains("."), !test.contains("(") {
            // XCTest's `name` on Linux, `CartTests.testCheckout`: the class is in it already.
            parts = [test]
        } else {
            let fileName = file.split(separator: "/").last.map(String.init) ?? ""
            parts = [
                fileName.hasSuffix(".swift") ? String(fileName.dropLast(6)) : fileName,
                test.split(separator: "(").first.map(String.init) ?? test,
            ]
        }
        let suffix = "-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased()
        var readable = String(
            String.UnicodeScalarView(
                parts.filter { !$0.isEmpty }.joined(separator: ".").unicodeScalars
                    .map { isAllowed($0) ? $0 : "-" }))
        while readable.contains("--") { readable = readable.replacingOccurrences(of: "--", with: "-") }
        readable = String(readable.drop { !isLetterOrDigit($0.unicodeScalars.first ?? "-") }.prefix(maxLength - suffix.count))
        while let last = readable.unicodeScalars.last, !isLetterOrDigit(last) { readable.unicodeScalars.removeLast() }
        return (readable.isEmpty ? "test" : readable) + suffix
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        isLetterOrDigit(scalar) || scalar == "." || scalar == "_" || scalar == "-"
    }
}
