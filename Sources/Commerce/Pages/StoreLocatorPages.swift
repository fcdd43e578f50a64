import HTTPServer
import Logging
import MockCore
import Templating

/// The store locator: the search form, the nearest stores (placing a ZIP code or city through a
/// geocoder, without blocking the loop), and a store's details and map.
struct StoreLocatorPages: Sendable {
    let physicalStores: PhysicalStores
    let settings: CommerceSettings
    let renderer: PageRenderer
    let values: StoreValues
    let logger: Logger
    /// One line per search the geocoder could not place, with the client's text: throttled and escaped.
    let unplacedLog = LogThrottle { count, seconds in "commerce: the geocoder did not place \(count) more search(es) in the last \(seconds) s" }

    /// `mStoreLocatorView`: search by ZIP code or city, or the current location.
    func form(_ store: StoreRequest, _ context: RequestContext) -> Response {
        renderer.page(
            "StoreLocator", store, scope: context.scope, title: renderer.label("storeLocator", store.language),
            [
                ("zipOrCity", .string(store.text("zipOrCity"))),
                ("productId", .string(store.text("productId"))),
            ])
    }

    /// `mStoreDetailView` (template `StoreDetail`) and `mStoreMapView` (`StoreMap`) of `physicalStoreId`.
    func physicalStore(_ template: String, _ store: StoreRequest, _ context: RequestContext) -> Response {
        let id = store.text("physicalStoreId")
        guard let found = physicalStores.store(id) else {
            return renderer.errorPage(
                store, message: renderer.label("errorNoStore", store.language) + PageRenderer.naming("physicalStoreId", id),
                scope: context.scope)
        }
        return renderer.page(template, store, scope: context.scope, title: found.name, [("store", values.physicalStoreValue(found, kilometres: nil))])
    }

    /// `mStoreLocatorSearchView`/`…ResultView`: stores near the coordinates given (from the
    /// device's location), or near where the geocoder puts the ZIP code or city; without a
    /// geocoder answer, the stores in that city or ZIP code.
    func search(_ store: StoreRequest, _ context: RequestContext) -> Reply {
        if let latitude = Double(store.text("geoCodeLatitude")), let longitude = Double(store.text("geoCodeLongitude")) {
            return .response(results(store, context, near: (latitude, longitude), fallback: []))
        }
        let place = store.text("zipOrCity")
        guard !place.isEmpty else {
            return .response(
                renderer.page(
                    "StoreLocator", store, scope: context.scope, title: renderer.label("storeLocator", store.language),
                    [("error", .string(renderer.label("errorZipOrCity", store.language)))]))
        }
        let matching = physicalStores.matching(place)
        return .deferred { [self] reply in
            guard let geocoding = settings.geocodingURL(place, localAuthority: reply.loop.localAuthority) else {
                return reply.send(results(store, context, near: nil, fallback: matching))
            }
            reply.loop.send(OutboundRequest(url: geocoding, timeout: .seconds(5))) { result in
                var point: (Double, Double)?
                if case .success(let response) = result, response.status == 200 {
                    point = CommerceSettings.location(in: response.body.bytes)
                } else {
                    for line in unplacedLog.lines({
                        "commerce: the geocoder did not place '\(LogText.escaped(place))' (\(result.failureText)); stores matched by ZIP code and city"
                    }) {
                        logger.info("\(line)")
                    }
                }
                reply.send(results(store, context, near: point, fallback: matching))
            }
        }
    }

    private func results(_ store: StoreRequest, _ context: RequestContext, near point: (Double, Double)?, fallback: [PhysicalStore]) -> Response {
        let found: [TemplateValue] =
            if let point {
                physicalStores.near(latitude: point.0, longitude: point.1).map { values.physicalStoreValue($0.store, kilometres: $0.kilometres) }
            } else {
                fallback.map { values.physicalStoreValue($0, kilometres: nil) }
            }
        return renderer.page(
            "StoreLocatorResult", store, scope: context.scope, title: renderer.label("storeLocator", store.language),
            [
                ("zipOrCity", .string(store.text("zipOrCity"))),
                ("stores", .array(found)),
                ("byLocation", .bool(store["geoCodeLatitude"] != nil)),
            ])
    }
}

extension Result<Response, OutboundError> {
    /// The failure, or the status of an answer that is not 200.
    var failureText: String {
        switch self {
        case .success(let response): "status \(response.status)"
        case .failure(let error): "\(error)"
        }
    }
}
