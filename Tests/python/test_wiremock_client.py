"""The official Python WireMock client (PyPI `wiremock`), unchanged, against a real Understudy."""
import tempfile

import pytest
import requests
from wiremock.constants import Config
from wiremock.resources.mappings import Mapping, MappingRequest, MappingResponse, HttpMethods
from wiremock.resources.mappings.resource import Mappings
from wiremock.resources.near_misses import NearMissMatchPatternRequest
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
