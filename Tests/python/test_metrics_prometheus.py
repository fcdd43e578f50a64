"""GET /__admin/metrics read by a real consumer, prometheus_client's text parser: every family
parses, and the counters move by exactly the requests the test sent (admin calls not counted)."""
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from understudy_server import ROOT, serve

GEOCODE = "/maps/api/geocode/json?address=Springfield%2C+IL"


@pytest.fixture(scope="module")
def base():
    with serve(os.path.join(ROOT, "stubs")) as url:
        yield url


def samples(base):
    """{(name, frozenset(labels)): value} of every sample the server exposes."""
    text = urllib.request.urlopen(base + "/__admin/metrics").read().decode()
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def get(base, path):
    try:
        return urllib.request.urlopen(base + path).status
    except urllib.error.HTTPError as error:
        return error.code


def moved(before, after, name, **labels):
    key = (name, frozenset(labels.items()))
    return after.get(key, 0) - before.get(key, 0)


def test_counters_move_by_exactly_the_requests_sent(base):
    before = samples(base)
    for _ in range(3):
        assert get(base, "/__understudy/example") == 200
    for _ in range(2):
        assert get(base, "/no/such/page") == 404
    for _ in range(2):
        assert get(base, GEOCODE) == 200
    after = samples(base)
    assert moved(before, after, "understudy_http_requests_total", backend="stubs", code="2xx") == 3
    assert moved(before, after, "understudy_http_requests_total", backend="none", code="4xx") == 2
    assert moved(before, after, "understudy_http_requests_total", backend="geocoder", code="2xx") == 2
    assert moved(before, after, "understudy_unmatched_requests_total") == 2
    assert moved(before, after, "understudy_http_request_duration_seconds_count") == 7
    assert moved(before, after, "understudy_http_request_duration_seconds_bucket", le="+Inf") == 7
    # The same geocoding request twice: rendered once, then answered from the cache.
    assert moved(before, after, "understudy_response_cache_lookups_total", backend="geocoder", result="miss") == 1
    assert moved(before, after, "understudy_response_cache_lookups_total", backend="geocoder", result="hit") == 1
    assert 0 < after[("understudy_response_cache_hit_ratio", frozenset({"backend": "geocoder"}.items()))] <= 1
    assert moved(before, after, "understudy_journal_entries") == 7


def test_the_gauges_describe_the_server(base):
    metrics = samples(base)
    assert metrics[("understudy_journal_capacity", frozenset())] == 10000
    assert metrics[("understudy_journal_evictions_total", frozenset())] == 0
    assert metrics[("understudy_scopes", frozenset())] >= 1
    assert metrics[("understudy_recording", frozenset({"backend": "recorder"}.items()))] == 0
    assert metrics[("understudy_recorded_exchanges_total", frozenset({"backend": "recorder"}.items()))] == 0
    assert any(name == "understudy_build_info" for name, _ in metrics)


def test_the_journal_counts_its_evictions():
    with serve(os.path.join(ROOT, "stubs"), "--journal-size", "2") as base:
        for _ in range(5):
            get(base, "/__understudy/example")
        metrics = samples(base)
        assert metrics[("understudy_journal_entries", frozenset())] == 2
        assert metrics[("understudy_journal_evictions_total", frozenset())] == 3


def test_open_connections_count_the_clients_connected_now():
    """Three keep-alive clients that each had an answer are open connections; once they hang up
    the gauge falls back to the scrape's own connection."""
    with serve(os.path.join(ROOT, "stubs")) as base:
        port = urllib.parse.urlsplit(base).port
        key = ("understudy_open_connections", frozenset({"port": str(port)}.items()))

        def settled(expected):
            # The server notices each hang-up on its next loop turn (the start-up's health checks'
            # too): wait for it, within reason.
            deadline = time.monotonic() + 30
            while samples(base)[key] != expected and time.monotonic() < deadline:
                time.sleep(0.05)
            return samples(base)[key]

        assert settled(1) == 1  # the scrape itself
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        try:
            for client in clients:
                client.sendall(b"GET /__understudy/example HTTP/1.1\r\nHost: test\r\n\r\n")
                assert client.recv(65536).startswith(b"HTTP/1.1 200")
            assert samples(base)[key] == 4
        finally:
            for client in clients:
                client.close()
        assert settled(1) == 1
