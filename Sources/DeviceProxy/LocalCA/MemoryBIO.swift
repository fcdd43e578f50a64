import CLibevent
import HTTPServer

/// OpenSSL memory BIOs, the way PEM text goes in and out of OpenSSL.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes` (nil if OpenSSL cannot make one). The BIO
    /// does not copy the bytes, so it lives only inside this call.
    static func reading<Result>(_ bytes: [UInt8], _ body: (OpaquePointer?) -> Result) -> Result {
        bytes.withUnsafeBytes { raw in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count))
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// Everything pending in `bio`, read out (no copy left behind in Swift memory).
    static func contents(_ bio: OpaquePointer) -> [UInt8] {
        let count = Int(BIO_ctrl_pending(bio))
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(clamping: count)) }
        if read < count { bytes.removeLast(count - max(0, Int(read))) }
        return bytes
    }
}
