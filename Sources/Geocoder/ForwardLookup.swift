/// Forward geocoding over the gazetteer: an address (and `components`) to the place it names.
///
/// Reading an address: a Canadian postal code or a 5-digit ZIP code (or ZIP+4) anywhere wins;
/// otherwise the address is read from its end — a country, then a first-level region (a US state,
/// a Canadian province) — and what is left must be a town's name. When the
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

    func lookup(_ query: Query) -> [PlaceResult] {
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

    private func countryResult(_ code: String?, partialMatch: Bool) -> [PlaceResult] {
        guard let code, let index = gazetteer.countriesByCode[code] else { return [] }
        return [gazetteer.result(country: index, partialMatch: partialMatch)]
    }

    /// A postal code found among the query's words: where, and which known code answers it.
    private struct PostalCodeMatch {
        var words: Range<Int>
        var index: Int?
        /// A full Canadian code that is not shipped, answered by its sortation area.
        var approximate = false
    }

    /// A Canadian postal code, else the last 5-digit word that is a known ZIP (an earlier one is
    /// often a house number), else the last 5-digit word.
    private func postalCode(in words: [String]) -> PostalCodeMatch? {
        if let (code, range) = CanadianPostalCode.last(in: words, isKnownArea: { gazetteer.postalCodesByZIP[$0] != nil }) {
            if let index = gazetteer.postalCodesByZIP[code.text] { return PostalCodeMatch(words: range, index: index) }
            let area = gazetteer.postalCodesByZIP[code.sortationArea]
            return PostalCodeMatch(words: range, index: area, approximate: area != nil)
        }
        guard
            let position = words.lastIndex(where: { isZIP($0) && gazetteer.postalCodesByZIP[$0] != nil })
                ?? words.lastIndex(where: isZIP)
        else { return nil }
        // ZIP+4 reads as two words: "94086-1234" → "94086", "1234".
        let end =
            position + 1 < words.count && words[position + 1].utf8.count == 4 && words[position + 1].allSatisfy(\.isNumber)
            ? position + 2 : position + 1
        return PostalCodeMatch(words: position..<end, index: gazetteer.postalCodesByZIP[words[position]])
    }

    /// The postal code's result when the query has one; nil when it has none at all.
    private func postalCodeResult(_ query: Query, countryFilter: String?) -> [PlaceResult]? {
        var words = query.words
        guard let match = postalCode(in: words) else { return nil }
        words.removeSubrange(match.words)
        guard let index = match.index else {
            // An unknown ZIP: place the rest of the address, and say it was only part of it.
            var rest = query
            rest.words = words
            rest.hasRoute = true
            return words.isEmpty ? [] : placeResult(rest, countryFilter: countryFilter).map { [$0] } ?? []
        }
        let place = gazetteer.postalCodes[index]
        guard countryFilter == nil || countryFilter == place.country else { return [] }
        // What else the address says must be (or be about) this code's town, region and country.
        for phrase in words.isEmpty ? [] : placePhrases(ofPostalCode: index)
        where !phrase.isEmpty && words.count >= phrase.count && Array(words.suffix(phrase.count)) == phrase {
            words.removeLast(phrase.count)
        }
        return [gazetteer.result(postalCode: index, partialMatch: query.hasRoute || match.approximate || !words.isEmpty)]
    }

    /// The names an address may give with a postal code, from the end of an address back:
    /// country, region, county, town.
    private func placePhrases(ofPostalCode index: Int) -> [[String]] {
        let place = gazetteer.postalCodes[index]
        let region = gazetteer.statesByCode[Gazetteer.regionKey(country: place.country, code: place.state)].map { gazetteer.states[$0] }
        let country: [[String]] =
            place.country == "US"
            ? [["usa"], ["us"], ["united", "states"]]
            : [PlaceName.words(gazetteer.country(place.country)?.name ?? ""), [place.country.lowercased()]]
        return country + [
            PlaceName.words(region?.name ?? ""), PlaceName.words(region?.otherName ?? ""), [place.state.lowercased()],
            PlaceName.words(place.county), PlaceName.words(place.city),
            gazetteer.town(ofPostalCode: index).map { PlaceName.words(gazetteer.localities[$0].name) } ?? [],
        ]
    }

    /// A reading of the address's end as a region, leaving the words that should name a town.
    private struct Reading {
        var words: [String]
        var state: Int?
        var country: String?
    }

    private func placeResult(_ query: Query, countryFilter: String?) -> PlaceResult? {
        let readings = self.readings(of: query.words, countryFilter: countryFilter)
        // A town named whole, or a region alone, in the first reading that has one: "Ontario, CA"
        // is the town in California (the state reading comes first), "Ontario" the province.
        for reading in readings {
            // A region alone ("California", "Germany", "CA"), unless a city of over a million of
            // the region has that very name: "New York" is the city.
            if reading.words.isEmpty {
                if let city = bestLocality(named: query.words, reading, query), gazetteer.localities[city].weight >= 1_000_000 {
                    return gazetteer.result(locality: city, partialMatch: query.hasRoute)
                }
                if let region = regionResult(reading, partialMatch: query.hasRoute) { return region }
                continue
            }
            if let town = bestLocality(named: reading.words, reading, query) {
                return gazetteer.result(locality: town, partialMatch: query.hasRoute)
            }
        }
        // A street before a known town: the longest town name at the end. When the end names a
        // region, only in that region: "Nowhere, Ontario" is not the town Ontario, California.
        for reading in readings.count > 1 ? readings.dropLast() : readings[...] where reading.words.count > 1 {
            for start in 1..<reading.words.count {
                if let town = bestLocality(named: Array(reading.words[start...]), reading, query) {
                    return gazetteer.result(locality: town, partialMatch: true)
                }
            }
        }
        // Only the region could be placed.
        return readings.lazy.compactMap { regionResult($0, partialMatch: true) }.first
    }

    private func regionResult(_ reading: Reading, partialMatch: Bool) -> PlaceResult? {
        if let state = reading.state { return gazetteer.result(state: state, partialMatch: partialMatch) }
        if let country = reading.country, let index = gazetteer.countriesByCode[country] {
            return gazetteer.result(country: index, partialMatch: partialMatch)
        }
        return nil
    }

    /// Country then region, region alone, country alone, nothing: the ways the address's end can
    /// name a region, most specific first. A two-letter word that is both a region and a
    /// country code ("CA", "DE") reads as the region first. A region word decides the country:
    /// "Markham, Ontario" is read in Canada only, never as a town called Ontario.
    private func readings(of words: [String], countryFilter: String?) -> [Reading] {
        var readings: [Reading] = []
        let country = suffix(of: words, in: gazetteer.countriesByName)
        if let (count, index) = country {
            let code = gazetteer.countries[index].code
            if countryFilter == nil || countryFilter == code {
                let rest = Array(words.dropLast(count))
                if let (stateCount, state) = suffix(of: rest, in: gazetteer.statesByName), gazetteer.states[state].country == code {
                    readings.append(Reading(words: Array(rest.dropLast(stateCount)), state: state, country: code))
                }
                readings.append(Reading(words: rest, state: nil, country: code))
            }
        }
        if let (count, state) = suffix(of: words, in: gazetteer.statesByName),
            countryFilter == nil || countryFilter == gazetteer.states[state].country
        {
            let stateFirst = country == nil || (country?.count == 1 && words.last?.utf8.count == 2)
            readings.insert(
                Reading(words: Array(words.dropLast(count)), state: state, country: gazetteer.states[state].country),
                at: stateFirst ? 0 : min(1, readings.count))
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
        let stateCode = reading.state.map { gazetteer.states[$0].townRegionCode }
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
