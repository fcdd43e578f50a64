/// Reverse geocoding: the places around a point, most specific first, as Google lists them —
/// the postal code, the town, the state, the country. In the US and Canada the nearest postal
/// code decides town and region; elsewhere the town that pulls hardest (population over distance squared, so
/// a city wins over its own districts and a suburb over the distant city) decides the country.
/// A point far from every known place (mid-ocean) has none.
import Foundation

struct ReverseLookup {
    let gazetteer: Gazetteer

    /// How far from its centre a ZIP code or a town still claims a point: a few times its radius.
    static let postalCodeReach = (factor: 2.5, minimum: 8_000.0)
    static let townReach = (factor: 1.5, minimum: 10_000.0)
    /// The nearest town decides the country up to this far.
    static let countryReach = 150_000.0

    func lookup(_ point: Coordinate) -> [PlaceResult] {
        var results: [PlaceResult] = []
        results.reserveCapacity(4)
        let maximumPostalReach = 30_000 * Self.postalCodeReach.factor
        if let (index, distance) = gazetteer.postalCodeGrid.nearest(to: point, within: maximumPostalReach),
            distance <= max(gazetteer.postalCodes[index].radius * Self.postalCodeReach.factor, Self.postalCodeReach.minimum)
        {
            let postalCode = gazetteer.postalCodes[index]
            let country = postalCode.text(.country)
            results.append(gazetteer.result(postalCode: index))
            if let town = gazetteer.town(ofPostalCode: index) { results.append(gazetteer.result(locality: town)) }
            if let state = gazetteer.regionIndex(country: country, code: postalCode.text(.state)) {
                results.append(gazetteer.result(state: state))
            }
            if let country = gazetteer.countryIndex(country) { results.append(gazetteer.result(country: country)) }
            return results
        }
        let near = gazetteer.localityGrid.points(near: point, within: Self.countryReach)
        guard let nearest = near.min(by: { $0.distance < $1.distance }) else { return [] }
        let claiming = near.filter { $0.distance <= max(gazetteer.localities[$0.index].radius * Self.townReach.factor, Self.townReach.minimum) }
        let pull = { (candidate: (index: Int, distance: Double)) in
            Double(gazetteer.localities[candidate.index].weight) / pow(candidate.distance + 1_000, 2)
        }
        let index = claiming.max { pull($0) < pull($1) }?.index ?? nearest.index
        let town = gazetteer.localities[index]
        let country = town.text(.country)
        let region = town.text(.regionShortCode)
        if !claiming.isEmpty { results.append(gazetteer.result(locality: index)) }
        if !region.isEmpty, let state = gazetteer.regionIndex(country: country, code: region) {
            results.append(gazetteer.result(state: state))
        }
        if let country = gazetteer.countryIndex(country) { results.append(gazetteer.result(country: country)) }
        return results
    }
}
