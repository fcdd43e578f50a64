/// Forward geocoding over the gazetteer: an address (and `components`) to the place it names.
///
/// Reading an address: a 5-digit ZIP code (or ZIP+4) anywhere wins; otherwise the address is read
/// from its end — a country, then a US state — and what is left must be a town's name. When the
/// town is not known whole, the longest known town name at the end is taken and the rest (a
/// street, usually) makes the result a `partial_match`, as Google answers a street it cannot
/// place. A state or country alone answers itself.
struct ForwardLookup {
    let gazetteer: Gazetteer

    /// What a request asks for, already split into words (see `PlaceName`).
    struct Query: Equatable {
        var words: [String]
        /// `components=country:` (ISO code or name): a hard filter.
        var country: String?
        /// `components=route:`: a street this gazetteer cannot place.
        var hasRoute = false
        /// `region=` (a ccTLD) and `bounds=`: bias the ranking only.
        var regionBias: String?
        var boundsBias: Box?
    }

    func lookup(_ query: Query) -> [GeocodeResult] {
        var countryFilter: String?
        if let country = query.country {
            guard let known = gazetteer.country(country) else { return [] }
            countryFilter = known.code
        }
        if query.words.isEmpty {
            return countryResult(countryFilter, partialMatch: query.hasRoute)
        }
        let results = postalCodeResult(query, countryFilter: countryFilter) ?? placeResult(query, countryFilter: countryFilter).map { [$0] } ?? []
        // Nothing in the filtered country: Google answers the country itself as a partial match.
        return results.isEmpty ? countryResult(countryFilter, partialMatch: true) : results
    }

    private func countryResult(_ code: String?, partialMatch: Bool) -> [GeocodeResult] {
        guard let code, let index = gazetteer.countriesByCode[code] else { return [] }
        return [gazetteer.result(country: index, partialMatch: partialMatch)]
    }

    /// The ZIP code's result when the query has one (the last 5-digit word that is a known ZIP;
    /// an earlier one is often a house number). Nil when there is no 5-digit word at all.
    private func postalCodeResult(_ query: Query, countryFilter: String?) -> [GeocodeResult]? {
        var words = query.words
        guard let position = words.lastIndex(where: { isZIP($0) && gazetteer.postalCodesByZIP[$0] != nil })
            ?? words.lastIndex(where: isZIP) else { return nil }
        let zip = words[position]
        // ZIP+4 reads as two words: "94086-1234" → "94086", "1234".
        let end = position + 1 < words.count && words[position + 1].utf8.count == 4 && words[position + 1].allSatisfy(\.isNumber) ? position + 2 : position + 1
        words.removeSubrange(position..<end)
        guard let index = gazetteer.postalCodesByZIP[zip] else {
            // An unknown ZIP: place the rest of the address, and say it was only part of it.
            var rest = query
            rest.words = words
            rest.hasRoute = true
            return words.isEmpty ? [] : placeResult(rest, countryFilter: countryFilter).map { [$0] } ?? []
        }
        guard countryFilter == nil || countryFilter == "US" else { return [] }
        let place = gazetteer.postalCodes[index]
        // What else the address says must be (or be about) this ZIP's town, state and country.
        for phrase in words.isEmpty ? [] : [["usa"], ["us"], ["united", "states"], PlaceName.words(gazetteer.state(place.state)?.name ?? ""),
                       [place.state.lowercased()], PlaceName.words(place.county), PlaceName.words(place.city),
                       gazetteer.town(ofPostalCode: index).map { PlaceName.words(gazetteer.localities[$0].name) } ?? []]
            where !phrase.isEmpty && words.count >= phrase.count && Array(words.suffix(phrase.count)) == phrase {
            words.removeLast(phrase.count)
        }
        return [gazetteer.result(postalCode: index, partialMatch: query.hasRoute || !words.isEmpty)]
    }

    /// A reading of the address's end as a region, leaving the words that should name a town.
    private struct Reading {
        var words: [String]
        var state: Int?
        var country: String?
    }

    private func placeResult(_ query: Query, countryFilter: String?) -> GeocodeResult? {
        let readings = self.readings(of: query.words, countryFilter: countryFilter)
        // A region alone ("California", "Germany", "CA"), unless a big city of the region has that
        // very name: "New York" is the city .
        if let region = readings.first(where: { $0.words.isEmpty }) {
            if let city = bestLocality(named: query.words, Reading(words: [], state: region.state, country: region.country), query),
               gazetteer.localities[city].weight >= 500_000 {
                return gazetteer.result(locality: city, partialMatch: query.hasRoute)
            }
            return regionResult(region, partialMatch: query.hasRoute)
        }
        // A town named whole, in the first reading that has one.
        for reading in readings {
            if let town = bestLocality(named: reading.words, reading, query) {
                return gazetteer.result(locality: town, partialMatch: query.hasRoute)
            }
        }
        // A street before a known town: the longest town name at the end.
        for reading in readings where reading.words.count > 1 {
            for start in 1..<reading.words.count {
                if let town = bestLocality(named: Array(reading.words[start...]), reading, query) {
                    return gazetteer.result(locality: town, partialMatch: true)
                }
            }
        }
        // Only the region could be placed.
        return readings.lazy.compactMap { regionResult($0, partialMatch: true) }.first
    }

    private func regionResult(_ reading: Reading, partialMatch: Bool) -> GeocodeResult? {
        if let state = reading.state { return gazetteer.result(state: state, partialMatch: partialMatch) }
        if let country = reading.country, let index = gazetteer.countriesByCode[country] {
            return gazetteer.result(country: index, partialMatch: partialMatch)
        }
        return nil
    }

    /// Country then state, state alone, country alone, nothing: the ways the address's end can
    /// name a region, most specific first. A two-letter word that is both a US state and a
    /// country code ("CA", "DE") reads as the state first.
    private func readings(of words: [String], countryFilter: String?) -> [Reading] {
        var readings: [Reading] = []
        let country = suffix(of: words, in: gazetteer.countriesByName)
        if let (count, index) = country {
            let code = gazetteer.countries[index].code
            if countryFilter == nil || countryFilter == code {
                let rest = Array(words.dropLast(count))
                if code == "US", let (stateCount, state) = suffix(of: rest, in: gazetteer.statesByName) {
                    readings.append(Reading(words: Array(rest.dropLast(stateCount)), state: state, country: "US"))
                }
                readings.append(Reading(words: rest, state: nil, country: code))
            }
        }
        if countryFilter == nil || countryFilter == "US", let (count, state) = suffix(of: words, in: gazetteer.statesByName) {
            let stateFirst = country == nil || (country?.count == 1 && words.last?.utf8.count == 2)
            readings.insert(Reading(words: Array(words.dropLast(count)), state: state, country: "US"), at: stateFirst ? 0 : 1)
        }
        readings.append(Reading(words: words, state: nil, country: countryFilter))
        return readings
    }

    /// The longest run of up to four words at the end of `words` that `names` knows.
    private func suffix(of words: [String], in names: [String: Int]) -> (count: Int, index: Int)? {
        for count in stride(from: min(4, words.count), through: 1, by: -1) {
            if let index = names[words.suffix(count).joined(separator: " ")] { return (count, index) }
        }
        return nil
    }

    /// The town of that name in the reading's region that ranks first: by population, ten times
    /// more in the `region` country or inside `bounds`.
    private func bestLocality(named words: [String], _ reading: Reading, _ query: Query) -> Int? {
        guard let candidates = gazetteer.localitiesByName[words.joined(separator: " ")] else { return nil }
        let stateCode = reading.state.map { gazetteer.states[$0].code }
        let regionCountry = query.regionBias.map { $0.uppercased() == "UK" ? "GB" : $0.uppercased() }
        var best: (index: Int, score: Double)?
        for index in candidates {
            let town = gazetteer.localities[index]
            if let country = reading.country, town.country != country { continue }
            if let stateCode, town.regionCode != stateCode { continue }
            var score = Double(town.weight)
            if town.country == regionCountry { score *= 10 }
            if let bounds = query.boundsBias, bounds.contains(town.location) { score *= 10 }
            if score > best?.score ?? -1 { best = (index, score) }
        }
        return best?.index
    }

    private func isZIP(_ word: String) -> Bool {
        word.utf8.count == 5 && word.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}
