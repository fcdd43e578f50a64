import HTTPServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `serve --verbose` and `understudy tail`: one aligned line per request on standard error —
/// time, method, status, target, who answered, how long, the scope when not the default —
/// with the status coloured by class on a terminal (unless `NO_COLOR` is set).
public struct RequestLog: Sendable {
    public let colored: Bool
    private let output: @Sendable (String) -> Void

    /// `output` gets each line with its newline.
    public init(colored: Bool, output: @escaping @Sendable (String) -> Void) {
        self.colored = colored
        self.output = output
    }

    /// Coloured when standard error is a terminal and `NO_COLOR` is unset or empty (no-color.org).
    public static func forStandardError() -> RequestLog {
        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        // One write per line, so lines of several loops do not interleave.
        return RequestLog(colored: isatty(STDERR_FILENO) == 1 && !noColor) { line in
            var text = line
            text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
        }
    }

    /// One exchange, fields padded so lines line up.
    public func line(loggedAt: Double, method: String, target: String, status: Int, servedBy: String?, micros: Int, scope: String) -> String {
        let time = String(Timestamp.iso8601(loggedAt).dropFirst(11).dropLast())  // HH:MM:SS.mmm
        let statusText = status == 0 ? "---" : String(status)
        let millis = Double(micros / 10) / 100
        var line =
            time + "  " + Self.padded(method, 7) + " " + paint(statusText, status) + "  " + Self.padded(Self.printable(target), 48)
            + " " + Self.padded(servedBy ?? "unmatched", 10) + " " + Self.padded(String(millis), 8, left: true) + " ms"
        if scope != StateScope.defaultName { line += "  scope " + Self.printable(scope) }
        return line
    }

    public func emit(_ line: String) { output(line + "\n") }

    private func paint(_ text: String, _ status: Int) -> String {
        guard colored else { return text }
        let color =
            switch status / 100 {
            case 2: "32"  // green
            case 3: "36"  // cyan
            case 4: "33"  // yellow
            case 5: "31"  // red
            default: "35"  // magenta: a broken connection
            }
        return "\u{1B}[\(color)m\(text)\u{1B}[0m"
    }

    private static func padded(_ text: String, _ width: Int, left: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let pad = String(repeating: " ", count: width - count)
        return left ? pad + text : text + pad
    }

    /// Control characters a client sent (an escape sequence in a URL) shown escaped, so a
    /// request can neither drive the terminal nor forge a line.
    static func printable(_ text: String) -> String {
        LogText.escaped(text, limit: 2048)
    }
}
