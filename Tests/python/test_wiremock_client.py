"""The official Python WireMock client (PyPI `wiremock`), unchanged, against a real Understudy."""
import tempfile

import pytest
import requests
from wiremock.constants import Config
from wiremock.resources.mappings import Mapping, MappingRequest, MappingResponse, HttpMethods
from wiremock.resources.mappings.resource import Mappings
from wiremock.resources.near_misses import NearMissMatchPatternRequest, NearMissMatchRequest
from wiremock.resources.near_misses.resource import NearMisses
from wiremock.resources.scenarios.resource import Scenarios
from wiremock.resources.settings import GlobalSetting
from wiremock.resources.settings.resource import GlobalSettings
from wiremock.resources.requests.resource import Requests

from understudy_server import serve


@pytest.fixture
def server():
    with tempfile.TemporaryDirectory() as stubs:
        with serve(stubs) as base:
            Config.base_url = base + "/__admin"
            yield base


def test_create_fetch_count_and_reset(server):
    created = Mappings.create_mapping(Mapping(
        priority=100,
        request=MappingRequest(method=HttpMethods.GET, url="/bus/7"),
        response=MappingResponse(status=200, body="route 7", headers={"Content-Type": "text/plain"}),
    ))
    assert created.id

    answer = requests.get(server + "/bus/7")
    assert answer.status_code == 200
    assert answer.text == "route 7"

    fetched = Mappings.retrieve_mapping(created.id)
    assert fetched.id == created.id
    assert fetched.request.url == "/bus/7"
    assert fetched.response.body == "route 7"
    assert Mappings.retrieve_all_mappings().meta.total == 1

    count = Requests.get_matching_request_count(NearMissMatchPatternRequest(method=HttpMethods.GET, url="/bus/7"))
    assert count.count == 1

    Requests.reset_request_journal()
    assert Requests.get_matching_request_count(NearMissMatchPatternRequest(method=HttpMethods.GET, url="/bus/7")).count == 0
    Mappings.reset_mappings()
    assert Mappings.retrieve_all_mappings().meta.total == 0
    assert requests.get(server + "/bus/7").status_code == 404


def test_every_call_of_the_client(server):
    """Each of the client's resources, as a Python test suite would call them."""
    mapping = Mappings.create_mapping(Mapping(
        request=MappingRequest(method=HttpMethods.GET, url_path="/bus/1"),
        response=MappingResponse(status=200, body="bus 1"),
        metadata={"line": "one"},
    ))
    mapping.response = MappingResponse(status=200, body="bus 1, late")
    Mappings.update_mapping(mapping)
    assert requests.get(server + "/bus/1").text == "bus 1, late"
    requests.get(server + "/bus/11")

    listed = Requests.get_all_received_requests(limit=5)
    assert [event.request.url for event in listed.requests] == ["/bus/11", "/bus/1"]
    one = Requests.get_request(listed.requests[0].id)
    assert one.request.url == "/bus/11"
    found = Requests.get_matching_requests(NearMissMatchPatternRequest(method=HttpMethods.GET, url_path="/bus/1"))
    assert [request.url for request in found.requests] == ["/bus/1"]
    unmatched = Requests.get_unmatched_requests()
    assert [request.url for request in unmatched.requests] == ["/bus/11"]
    near = Requests.get_unmatched_requests_near_misses()
    assert near.near_misses[0].request.url == "/bus/11"
    assert 0 < near.near_misses[0].match_result.distance < 0.2

    by_request = NearMisses.find_nearest_misses_by_request(NearMissMatchRequest(url="/bus/2", method=HttpMethods.GET))
    assert by_request.near_misses[0].request.url == "/bus/2"
    assert 0 < by_request.near_misses[0].match_result.distance < 0.2
    by_pattern = NearMisses.find_nearest_misses_by_request_pattern(NearMissMatchPatternRequest(url="/bus/111", method=HttpMethods.GET))
    assert by_pattern.near_misses[0].request.url == "/bus/11"
    assert by_pattern.near_misses[0].request_pattern.url == "/bus/111"

    GlobalSettings.update_global_settings(GlobalSetting(fixed_delay=0))
    Scenarios.reset_all_scenarios()

    Mappings.delete_mapping_by_metadata({"matchesJsonPath": {"expression": "$.line", "equalTo": "one"}})
    assert requests.get(server + "/bus/1").status_code == 404
    second = Mappings.create_mapping(Mapping(request=MappingRequest(method=HttpMethods.GET, url="/two"), response=MappingResponse(status=204)))
    Mappings.delete_mapping(second.id)
    assert Mappings.retrieve_all_mappings().meta.total == 0
    Mappings.create_mapping(Mapping(request=MappingRequest(method=HttpMethods.GET, url="/three"), response=MappingResponse(status=204)))
    Mappings.delete_all_mappings()
    assert Mappings.retrieve_all_mappings().meta.total == 0
