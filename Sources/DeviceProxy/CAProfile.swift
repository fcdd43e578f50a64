import Foundation
import HTTPServer
import MockCore
import WireFormat

/// The local CA as an iOS configuration profile (`GET /__admin/ca.mobileconfig`): one
/// `com.apple.security.root` payload holding the CA's certificate (DER), so Safari on an iPhone
/// or a simulator offers to install it in one step. The payloads' identifiers and UUIDs come from
/// the CA's fingerprint: the same CA is the same profile, installed again in place.
enum CAProfile {
    static let contentType = "application/x-apple-aspen-config"

    static func response(for authority: LocalCA) -> Response {
        var response = Response(status: 200, body: ResponseBody(plist(for: authority)))
        response.headers.set("Content-Type", contentType)
        response.headers.set("Content-Disposition", "attachment; filename=\"understudy-ca.mobileconfig\"")
        return response
    }

    static func plist(for authority: LocalCA) -> String {
        let hex = authority.fingerprint.replacingOccurrences(of: ":", with: "")
        let name = TextEscaper.xmlText.escaped(authority.commonName)
        // RFC 4122 layout over the fingerprint's first 32 hex digits (version and variant set).
        func uuid(_ salt: Character) -> String {
            var digits = Array(hex.prefix(32))
            digits[12] = "4"
            digits[16] = salt
            let text = String(digits)
            return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(Array(text)[$0]) }.joined(separator: "-")
        }
        let der = Data(authority.certificateDER).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>PayloadContent</key>
            \t<array>
            \t\t<dict>
            \t\t\t<key>PayloadCertificateFileName</key>
            \t\t\t<string>understudy-ca.cer</string>
            \t\t\t<key>PayloadContent</key>
            \t\t\t<data>
            \(der)
            \t\t\t</data>
            \t\t\t<key>PayloadDescription</key>
            \t\t\t<string>Trusts Understudy's local CA, which signs the certificates of the hosts it answers for in device mode. Development devices only.</string>
            \t\t\t<key>PayloadDisplayName</key>
            \t\t\t<string>\(name)</string>
            \t\t\t<key>PayloadIdentifier</key>
            \t\t\t<string>com.apple.security.root.understudy.\(hex.prefix(16).lowercased())</string>
            \t\t\t<key>PayloadType</key>
            \t\t\t<string>com.apple.security.root</string>
            \t\t\t<key>PayloadUUID</key>
            \t\t\t<string>\(uuid("8"))</string>
            \t\t\t<key>PayloadVersion</key>
            \t\t\t<integer>1</integer>
            \t\t</dict>
            \t</array>
            \t<key>PayloadDescription</key>
            \t<string>Understudy's local CA for development devices. Then turn on full trust: Settings → General → About → Certificate Trust Settings.</string>
            \t<key>PayloadDisplayName</key>
            \t<string>Understudy local CA</string>
            \t<key>PayloadIdentifier</key>
            \t<string>org.understudy.ca.\(hex.prefix(16).lowercased())</string>
            \t<key>PayloadRemovalDisallowed</key>
            \t<false/>
            \t<key>PayloadType</key>
            \t<string>Configuration</string>
            \t<key>PayloadUUID</key>
            \t<string>\(uuid("9"))</string>
            \t<key>PayloadVersion</key>
            \t<integer>1</integer>
            </dict>
            </plist>

            """
    }
}
