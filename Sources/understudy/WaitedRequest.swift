import Dispatch
import HTTPServer

extension EventLoop {
    /// Sends `request` from this (client) loop and waits for the outcome on the calling thread:
    /// for commands that do one call at a time and nothing else meanwhile (`tail`, `mcp`).
    func sendWaiting(_ request: OutboundRequest) -> Result<Response, OutboundError> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Response, OutboundError>>(.failure(.timedOut(request.url)))
        execute {
            self.send(request) { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
        }
        done.wait()
        return outcome.withLock { $0 }
    }
}
