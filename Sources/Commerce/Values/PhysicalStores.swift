import Foundation
import MockCore

/// A bricks-and-mortar store for the store locator.
struct PhysicalStore: Codable, Sendable {
    var id: String
    var name: String
    var address: String
    var city: String
    var state: String
    var zip: String
    var country: String
    var phone: String
    var latitude: Double
    var longitude: Double
    var hours: String
}

/// The stores of `stores.json`, searched by place or by distance.
struct PhysicalStores: Sendable {
    let stores: [PhysicalStore]

    private struct File: Codable { var stores: [PhysicalStore] }

    static func load(_ url: URL) throws(FixtureError) -> PhysicalStores {
        let file: File = try FixtureJSON.decode(url)
        for (index, store) in file.stores.enumerated() where abs(store.latitude) > 90 || abs(store.longitude) > 180 {
            throw FixtureError.field(url, "stores[\(index)]", "latitude/longitude out of range")
        }
        return PhysicalStores(stores: file.stores)
    }

    func store(_ id: String) -> PhysicalStore? { stores.first { $0.id == id } }

    /// Stores in the city or ZIP code named, without a geocoder: exact ZIP, then city name.
    func matching(_ zipOrCity: String) -> [PhysicalStore] {
        let wanted = zipOrCity.trimmingCharacters(in: .whitespaces).lowercased()
        guard !wanted.isEmpty else { return [] }
        let city = wanted.split(separator: ",").first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? wanted
        return stores.filter { $0.zip == wanted || $0.city.lowercased() == city }
    }

    /// The stores within `radius` kilometres of a point, nearest first, with their distance.
    func near(latitude: Double, longitude: Double, radius: Double = 80, limit: Int = 10) -> [(store: PhysicalStore, kilometres: Double)] {
        stores.map { ($0, Self.distance(latitude, longitude, $0.latitude, $0.longitude)) }
            .filter { $0.1 <= radius }
            .sorted { $0.1 < $1.1 }
            .prefix(limit)
            .map { (store: $0.0, kilometres: $0.1) }
    }

    /// Great-circle distance in kilometres (haversine).
    static func distance(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLng = (lng2 - lng1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLng / 2) * sin(dLng / 2)
        return 6371 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

/// A postal address in a shopper's address book.
struct ShopperAddress: Codable, Sendable, Equatable {
    var nickName: String
    var firstName: String
    var lastName: String
    var address1: String
    var city: String
    var state: String
    var zipCode: String
    var country: String
    var phone: String
    var email: String
}

/// A registered shopper of `shoppers.json` (or one who registered since the last reset).
struct Shopper: Codable, Sendable {
    var logonId: String
    var password: String
    var firstName: String
    var lastName: String
    var email: String
    var preferredLanguage: String?
    var addresses: [ShopperAddress]
}

enum ShopperFixtures {
    private struct File: Codable { var shoppers: [Shopper] }

    static func load(_ url: URL) throws(FixtureError) -> [Shopper] {
        let file: File = try FixtureJSON.decode(url)
        var seen = Set<String>()
        for (index, shopper) in file.shoppers.enumerated() where !seen.insert(shopper.logonId.lowercased()).inserted {
            throw FixtureError.field(url, "shoppers[\(index)].logonId", "'\(shopper.logonId)' is given twice")
        }
        return file.shoppers
    }
}
