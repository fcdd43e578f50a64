"""Popular geocoding clients, unchanged, against Understudy's geocoder: geopy's GoogleV3 and
Google's own `googlemaps` client (keys, Premier signatures, statuses), pointed at a real server."""
import json
import os
import tempfile

import googlemaps
import pytest
from geopy.exc import GeocoderQueryError, GeocoderQuotaExceeded
from geopy.geocoders import GoogleV3

from understudy_server import ROOT, serve

GAZETTEER = os.path.join(ROOT, "stubs", "geocoder")
KEY = "AIzaUnderstudyTestKey"
CLIENT_ID, CLIENT_SECRET = "gme-understudy", "vNIXE0xscrmjlyV-12Nj_BvUPaw="


@pytest.fixture(scope="module")
def base():
    """A server on the shipped gazetteer with one valid key, a key at its quota, and a Premier client."""
    with tempfile.TemporaryDirectory() as stubs:
        geocoder = os.path.join(stubs, "geocoder")
        os.makedirs(geocoder)
        for name in os.listdir(GAZETTEER):
            if name.endswith(".csv") or name == "places.json":
                os.symlink(os.path.join(GAZETTEER, name), os.path.join(geocoder, name))
        with open(os.path.join(geocoder, "config.json"), "w") as config:
            json.dump({"keys": {KEY: "OK", "AIzaNoBilling": "OVER_DAILY_LIMIT"},
                       "rateLimit": {"perDay": 1000}, "clients": {CLIENT_ID: CLIENT_SECRET}}, config)
        with serve(stubs) as url:
            yield url


def geopy(base, key=KEY):
    return GoogleV3(api_key=key, domain=base.split("//")[1], scheme="http", timeout=10)


def test_geopy_geocodes_a_zip_code(base):
    location = geopy(base).geocode("94086")
    assert location.address == "Sunnyvale, CA 94086, USA"
    assert abs(location.latitude - 37.37) < 0.03 and abs(location.longitude + 122.03) < 0.03
    assert location.raw["types"] == ["postal_code"]


def test_geopy_components_region_and_reverse(base):
    assert geopy(base).geocode("Paris", components={"country": "US"}).address == "Paris, TX, USA"
    assert geopy(base).geocode("Toledo", region="es").address == "Toledo, Spain"
    found = geopy(base).reverse("37.3764, -122.0238", exactly_one=False)
    assert [place.address for place in found] == ["Sunnyvale, CA 94086, USA", "Sunnyvale, CA, USA", "California, USA", "United States"]


def test_geopy_sees_zero_results_as_none_and_errors_as_exceptions(base):
    assert geopy(base).geocode("qwxzzyv plorbt") is None
    with pytest.raises(GeocoderQueryError, match="The provided API key is invalid."):
        geopy(base, key="stolen").geocode("94086")
    with pytest.raises(GeocoderQuotaExceeded):
        geopy(base, key="AIzaNoBilling").geocode("94086")


def test_googlemaps_client_with_a_key(base):
    client = googlemaps.Client(key=KEY, base_url=base)
    results = client.geocode("Sunnyvale, CA 94086")
    assert [r["formatted_address"] for r in results] == ["Sunnyvale, CA 94086, USA"]
    assert results[0]["address_components"][3] == {"long_name": "California", "short_name": "CA",
                                                    "types": ["administrative_area_level_1", "political"]}
    again = client.geocode(place_id=results[0]["place_id"])
    assert again == results
    assert client.reverse_geocode((52.52, 13.40))[0]["formatted_address"] == "Berlin, Germany"
    assert client.geocode(components={"postal_code": "98101"})[0]["formatted_address"] == "Seattle, WA 98101, USA"


def test_googlemaps_premier_client_signs_and_a_wrong_secret_is_refused(base):
    signed = googlemaps.Client(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, base_url=base, channel="ci")
    assert signed.geocode("New York")[0]["formatted_address"] == "New York, NY, USA"
    forged = googlemaps.Client(client_id=CLIENT_ID, client_secret="AAAAAAAAAAAAAAAAAAAAAAAAAAA=", base_url=base,
                               retry_timeout=1)
    with pytest.raises(googlemaps.exceptions.HTTPError, match="403"):
        forged.geocode("New York")


def test_googlemaps_client_reports_google_statuses(base):
    client = googlemaps.Client(key="AIzaNoBilling", base_url=base, retry_over_query_limit=False)
    with pytest.raises(googlemaps.exceptions.ApiError) as error:
        client.geocode("94086")
    assert error.value.status == "OVER_DAILY_LIMIT"
