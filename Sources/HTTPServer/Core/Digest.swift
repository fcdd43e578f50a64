import CLibevent

/// Message digests from OpenSSL (linked for TLS already).
public enum Digest {
    /// SHA-256 of `bytes`, as 64 lowercase hex digits (Apollo's persisted-query hash).
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        var input = bytes
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_Digest(&input, input.count, &digest, &length, EVP_sha256(), nil)
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.prefix(Int(length)).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
    }
}
