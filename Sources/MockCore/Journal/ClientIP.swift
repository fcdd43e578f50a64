import HTTPServer

extension Request {
    /// The client's address as WireMock gives it (`clientIp` in the journal, in templates and to
    /// the `clientIp` matcher): the `X-Forwarded-For` header as sent, whole (a proxy's list of
    /// addresses stays a list), when there is one; else the address of the connection.
    public var clientIP: String {
        if let forwarded = headers["X-Forwarded-For"], !forwarded.isEmpty { return forwarded }
        return remoteAddress
    }
}
