import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session that hands redirects back instead of following them: a test sees the 302 itself
/// (FoundationNetworking also resolves some relative `Location`s without their trailing slash).
public final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    public static func session() -> URLSession {
        URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
    }

    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
