import Dispatch
import HTTPServer
import JSON
import MockCore
import WireFormat

/// What a device needs to use Understudy as its proxy: the local CA's certificate to trust
/// (`GET /__admin/ca.pem`, `.crt` — the same PEM, which phones open as a certificate — and `.der`),
/// a page that says how to trust it on each kind of device (`GET /__admin/ca`), and a proxy
/// auto-config file (`GET /proxy.pac`) that sends only the mapped hosts here; and a scope's own
/// proxy port (`/__admin/scopes/NAME/proxy`).
public final class DeviceModeAPI: AdminRoutesProvider {
    public let name = "device-mode"
    /// The CA's paths are the admin table's; the PAC file is not an admin path (a device fetches
    /// it by whatever name it reaches this machine, which the admin guard would refuse).
    public let mounts = ["/proxy.pac"]

    private let deviceMode: DeviceMode
    /// The scopes a proxy port is opened for.
    private let scopes: StateScopes

    public init(deviceMode: DeviceMode, scopes: StateScopes) {
        self.deviceMode = deviceMode
        self.scopes = scopes
    }

    public var adminRoutes: [AdminRoute] { Self.endpoints.routes(servedBy: self) }

    /// The CA's paths serve nothing secret (phones download the certificate from Safari): no token.
    public static let endpoints: [AdminEndpoint<DeviceModeAPI>] = [
        AdminEndpoint(
            "/__admin/ca", isPublic: true, "how to trust the local CA on each kind of device",
            [.get: { api, call in api.withCA { api.page($0, proxy: ScopeProxyPorts.proxyAuthority(of: call.request)) } }]),
        AdminEndpoint(
            "/__admin/ca.pem", isPublic: true, "the local CA's certificate (PEM)",
            [
                .get: { api, _ in
                    api.withCA { DeviceModeAPI.certificate($0.certificatePEM, type: "application/x-pem-file", file: "understudy-ca.pem") }
                }
            ]),
        AdminEndpoint(
            "/__admin/ca.crt", isPublic: true, "the same PEM, as phones open a certificate",
            [
                .get: { api, _ in
                    api.withCA { DeviceModeAPI.certificate($0.certificatePEM, type: "application/x-x509-ca-cert", file: "understudy-ca.crt") }
                }
            ]),
        AdminEndpoint(
            "/__admin/ca.der", isPublic: true, "the certificate (DER)",
            [
                .get: { api, _ in
                    api.withCA { authority in
                        var response = Response(status: 200, body: ResponseBody(authority.certificateDER))
                        response.headers.set("Content-Type", "application/x-x509-ca-cert")
                        response.headers.set("Content-Disposition", "attachment; filename=\"understudy-ca.der\"")
                        return response
                    }
                }
            ]),
        AdminEndpoint(
            "/__admin/ca.mobileconfig", isPublic: true, "an iOS configuration profile holding the CA",
            [.get: { api, _ in api.withCA { CAProfile.response(for: $0) } }]),
        AdminEndpoint(
            "/proxy.pac", isPublic: true, "a proxy auto-config file for the mapped hosts (`?scope=NAME`: to the scope's port)",
            [.get: { api, call in .response(api.pacFile(call.request)) }]),
        AdminEndpoint(
            "/__admin/scopes/{name}/proxy", "the scope's own proxy port, opened by `POST` (device mode)",
            [
                .get: { api, call in api.proxyPort(call.request, scopeName: call.parameters[0]) },
                .post: { api, call in api.proxyPort(call.request, scopeName: call.parameters[0]) },
            ]),
    ]

    /// `/proxy.pac` (mounted here, outside the admin table's `/__admin`).
    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard request.path == "/proxy.pac" else { return .decline }
        guard request.method == .get || request.method == .head else {
            // As the admin table answers a method a route does not take.
            var refusal = Response.text("\(request.method.rawValue) is not a method of /proxy.pac: it takes GET, HEAD\n", status: 405)
            refusal.headers.set("Allow", "GET, HEAD")
            return .response(refusal)
        }
        return .response(pacFile(request))
    }

    private func pacFile(_ request: Request) -> Response {
        guard let scope = request.query("scope") else { return deviceMode.pacFile(proxy: ScopeProxyPorts.proxyAuthority(of: request)) }
        // A scope's PAC file: the mapped hosts go to that scope's own proxy port.
        guard let port = deviceMode.scopePorts?.port(of: scope) else {
            return .text("Scope \(scope) has no proxy port: open one with POST /__admin/scopes/\(scope)/proxy.\n", status: 404)
        }
        return deviceMode.pacFile(proxy: ScopeProxyPorts.authority(ScopeProxyPorts.proxyAuthority(of: request), withPort: port))
    }

    /// `POST` opens the scope's own proxy port (or answers the one open already) and makes the
    /// scope; `GET` shows it; the port closes when the scope goes. Answers `{"scope", "port",
    /// "proxy": "host:port", "pac": "http://host:port/proxy.pac?scope=NAME"}`.
    private func proxyPort(_ request: Request, scopeName name: String) -> Reply {
        if let problem = ScopeSelection.problem(with: name) { return .response(message(problem, status: 400)) }
        guard let ports = deviceMode.scopePorts else { return .response(message("This server opens no proxy ports.", status: 501)) }
        let authority = ScopeProxyPorts.proxyAuthority(of: request)
        let describe: @Sendable (Int) -> Response = { port in
            .json(
                JSONValue.object([
                    ("scope", .string(name)), ("port", .int(port)), ("proxy", .string(ScopeProxyPorts.authority(authority, withPort: port))),
                    ("pac", .string("http://\(authority)/proxy.pac?scope=\(name)")),
                ]).serialized)
        }
        switch request.method {
        case .get:
            guard let port = ports.port(of: name) else {
                return .response(message("Scope \(name) has no proxy port: POST to open one.", status: 404))
            }
            return .response(describe(port))
        default:
            let (scopes, limit) = (scopes, scopes.limits.maxScopes)
            // Off the loop: starting a listener makes a thread and binds a socket.
            return .computed(on: .global()) {
                do throws(ScopeProxyPorts.OpenError) {
                    let scope = scopes.scope(named: name)
                    scope.noteUse(at: MonotonicClock.nanoseconds(), countsRequest: false)
                    return describe(try ports.port(for: scope, limit: limit))
                } catch {
                    switch error {
                    case .tooMany(let limit):
                        return .json(
                            JSONValue.object([("message", .string("\(limit) scope proxy ports are open, as many as scopes may live (--max-scopes)"))])
                                .serialized, status: 409)
                    case .cannotStart(let reason):
                        return .json(JSONValue.object([("message", .string("Cannot open a proxy port: \(reason)"))]).serialized, status: 500)
                    }
                }
            }
        }
    }

    private func message(_ text: String, status: Int) -> Response {
        .json(JSONValue.object([("message", .string(text))]).serialized, status: status)
    }

    /// `answer` of the local CA, made at its first use (DeviceMode.endTLS); 404 when there is none.
    private func withCA(_ answer: (LocalCA) -> Response) -> Reply {
        guard let authority = deviceMode.tlsSetup()?.authority else {
            return .response(.text("This server has no local CA (device mode could not make or read one; its log says why).\n", status: 404))
        }
        return .response(answer(authority))
    }

    private static func certificate(_ pem: String, type: String, file: String) -> Response {
        var response = Response(status: 200, body: ResponseBody(pem))
        response.headers.set("Content-Type", type)
        response.headers.set("Content-Disposition", "attachment; filename=\"\(file)\"")
        return response
    }

    /// How to trust the CA, per device, with this server's own address in the commands.
    private func page(_ authority: LocalCA, proxy: String) -> Response {
        let base = "http://\(TextEscaper.html.escaped(proxy))"
        let hosts = deviceMode.hostMap.hosts.map { "<li><code>\(TextEscaper.html.escaped($0))</code></li>" }.joined()
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Understudy's local CA</title>
            <style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}code,pre{background:#f3f3f3;border-radius:4px}pre{padding:.6rem;overflow-x:auto}h2{margin-top:2rem}</style>
            </head><body>
            <h1>Understudy's local CA</h1>
            <p>With this server as a device's proxy, apps reach their real host names and get answers from here. For
            <code>https://</code> hosts, Understudy presents certificates issued by its own certificate authority,
            <strong>\(TextEscaper.html.escaped(authority.commonName))</strong> (SHA-256 <code>\(TextEscaper.html.escaped(authority.fingerprint))</code>),
            which the device must trust. Trust it on development devices only: its key, on this machine in
            <code>\(TextEscaper.html.escaped(authority.directory.path))</code>, could sign a certificate for any site.</p>
            <p>Download: <a href="/__admin/ca.pem">ca.pem</a> · <a href="/__admin/ca.crt">ca.crt</a> (phones) ·
            <a href="/__admin/ca.der">ca.der</a> (DER) · <a href="/__admin/ca.mobileconfig">ca.mobileconfig</a> (iOS profile). Proxy: <code>\(TextEscaper.html.escaped(proxy))</code>, or the auto-config URL
            <a href="/proxy.pac"><code>\(base)/proxy.pac</code></a>, which sends only these hosts here:</p>
            <ul>\(hosts.isEmpty ? "<li>none yet: map hosts in <code>\(TextEscaper.html.escaped(deviceMode.hostsFile.path))</code></li>" : hosts)</ul>
            <h2>iOS Simulator</h2>
            <pre>understudy trust ios-simulator</pre>
            <p>or by hand:</p>
            <pre>curl -o understudy-ca.pem \(base)/__admin/ca.pem
            xcrun simctl keychain booted add-root-cert understudy-ca.pem</pre>
            <p>Then set the Mac's HTTP and HTTPS proxy (System Settings → Network → Details → Proxies) to
            <code>\(TextEscaper.html.escaped(proxy))</code>, or the auto-config URL above: the Simulator uses the Mac's.</p>
            <h2>iPhone or iPad</h2>
            <ol><li>Settings → Wi-Fi → (i) of the network → Configure Proxy → Manual: this machine's address and port, or Automatic with the auto-config URL.</li>
            <li>In Safari, open <a href="/__admin/ca.mobileconfig"><code>\(base)/__admin/ca.mobileconfig</code></a> (a configuration profile) and allow its download.</li>
            <li>Settings → General → VPN &amp; Device Management → the Understudy profile → Install.</li>
            <li>Settings → General → About → Certificate Trust Settings → turn on full trust for the Understudy CA.</li></ol>
            <h2>Android emulator</h2>
            <pre>emulator -avd NAME -http-proxy \(TextEscaper.html.escaped(proxy))
            understudy trust android-emulator</pre>
            <p>That puts the CA in the system store, which every app trusts (an image without Google Play, which
            allows <code>adb root</code>). Otherwise, as a user CA:</p>
            <pre>curl -o understudy-ca.crt \(base)/__admin/ca.crt
            adb push understudy-ca.crt /sdcard/Download/</pre>
            <p>Settings → Security → Encryption &amp; credentials → Install a certificate → CA certificate. Apps trust user CAs
            only when their <code>network_security_config</code> says so (debug builds: <code>&lt;debug-overrides&gt;</code>).</p>
            <h2>Chrome, Chromium and Firefox on Linux (NSS)</h2>
            <pre>certutil -d sql:$HOME/.pki/nssdb -A -t "C,," -n understudy -i understudy-ca.pem
            chromium --proxy-server=\(TextEscaper.html.escaped(proxy))</pre>
            <h2>curl</h2>
            <pre>curl --proxy \(base) --cacert understudy-ca.pem https://www.ibm.com/developerworks/mydeveloperworks/news/atom/stories/public</pre>
            <h2>Python</h2>
            <pre>requests.get(url, proxies={"http": "\(base)", "https": "\(base)"}, verify="understudy-ca.pem")</pre>
            <p>The same file from the command line: <code>understudy ca --export understudy-ca.pem</code>.</p>
            </body></html>

            """
        var response = Response(status: 200, body: ResponseBody(html))
        response.headers.set("Content-Type", "text/html; charset=utf-8")
        return response
    }
}
