import CLibevent

extension HTTPHeaders {
    /// The fields of one of libevent's header lists, in order.
    init(libevent list: UnsafeMutablePointer<evkeyvalq>?) {
        var fields: [HTTPHeader] = []
        var field = understudy_headers_first(list)
        while let current = field {
            fields.append(HTTPHeader(name: String(cString: current.pointee.key), value: String(cString: current.pointee.value)))
            field = understudy_headers_next(current)
        }
        self.init(fields)
    }
}

extension Array where Element == UInt8 {
    /// A copy of everything in an evbuffer (left in place).
    init(evbuffer buffer: OpaquePointer?) {
        let length = evbuffer_get_length(buffer)
        guard length > 0 else {
            self = []
            return
        }
        self.init(unsafeUninitializedCapacity: length) { bytes, count in
            count = Swift.max(0, Int(evbuffer_copyout(buffer, bytes.baseAddress, length)))
        }
    }
}
