// Module Commerce: the WebSphere Commerce 7 "Madisons" mobile storefront of seed 000 — the
// pages the iPhone/iPad hybrid app wraps (with its madisons:// bridge links), sessions and
// carts as WebSphere Commerce keeps them, the store locator, checkout, and the JSON search
// services — from editable fixtures and templates in stubs/commerce/.

import Foundation
import HTTPServer
import Logging
import MockCore

/// The storefront at `/webapp/wcs/stores/servlet/<View or Command>`, its SEO URLs under `/shop`
/// (and under the servlet, without the web server's rewrite), its assets under `/wcsstore`, and the
/// search REST services under `/search/resources` (and `/wcs/resources`, where feature packs
/// before 7 served them).
public final class CommerceBackend: Backend {
    public let name = "commerce"
    /// The storefront's paths `config.json` keeps (all by default).
    public let mounts: [String]

    static let servlet = "/webapp/wcs/stores/servlet/"

    /// The storefront, loaded on a thread of its own (requests wait for it).
    private let loaded = BackgroundLoad<Storefront>()

    /// Loads `directory` (normally `stubs/commerce`) in the background; problems are logged with
    /// their file and field, and whatever loaded is served.
    public init(directory: URL, logger: Logger = Logger(label: "understudy")) {
        // A problem with the file is logged once, by the storefront's load.
        mounts = CommerceSettings.read(from: directory).settings.mounts
        loaded.start { Storefront(directory: directory, logger: logger) }
    }

    /// Every problem with the folder's files, for `understudy check`.
    public static func check(directory: URL) -> [FixtureError] {
        Storefront.check(directory: directory)
    }

    /// The storefront, once loaded.
    var storefront: Storefront? { loaded.value }

    public var isReady: Bool { loaded.isLoaded }

    public var report: BackendReport { loaded.value?.report ?? BackendReport() }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard let storefront = loaded.value else { return loaded.deferredReply { $0.handle(request, context) } }
        return storefront.handle(request, context)
    }
}
