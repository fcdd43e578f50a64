import Foundation
import Testing
import WireFormat

@Suite struct Base64Tests {
    @Test func decodesWhatFoundationDecodesAndRefusesWhatItRefuses() {
        // RFC 4648's test vectors, and what Proxy-Authorization carries.
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "ci-3:x", "ci-3:", "ü:ß", "\u{0}\u{FF}"] {
            let encoded = Data(text.utf8).base64EncodedString()
            #expect(Base64.decode(Array(encoded.utf8)) == Array(text.utf8), "\(encoded)")
        }
        for bad in ["Zg", "Zg=", "Zm9v!", "Z===", "Zg==Zg==", "Zm 9v", "=Zg=", "Zm9v\n"] {
            #expect(Base64.decode(Array(bad.utf8)) == nil, "\(bad)")
            #expect(Data(base64Encoded: bad) == nil, "Foundation agrees on \(bad)")
        }
        var random = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(Base64.decode(Array(Data(bytes).base64EncodedString().utf8)) == bytes)
        }
    }
}
