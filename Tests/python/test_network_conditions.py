"""A simulated network per state scope: latency, a down rate, offline. Checked from below only
(an answer comes no sooner than the conditions allow), never with an upper bound on time."""
import tempfile
import time

import pytest
import requests

from understudy_server import serve

BIG = 100_000


@pytest.fixture(scope="module")
def server():
    with tempfile.TemporaryDirectory() as stubs:
        with serve(stubs) as base:
            for mapping in [{"request": {"urlPath": "/small"}, "response": {"body": "small"}},
                            {"request": {"urlPath": "/big"}, "response": {"body": "x" * BIG}}]:
                requests.post(base + "/__admin/mappings", json=mapping, timeout=10).raise_for_status()
            yield base


def network(base, scope, method="PUT", body=None):
    return requests.request(method, "%s/__admin/scopes/%s/network" % (base, scope), json=body, timeout=10)


def timed(base, path, scope):
    started = time.monotonic()
    answer = requests.get(base + path, headers={"X-Understudy-Scope": scope}, timeout=60)
    return answer, time.monotonic() - started


def test_latency_delays_only_its_own_scope(server):
    assert network(server, "slow", body={"latencyMs": 300}).json()["network"]["latencyMs"] == 300
    answer, seconds = timed(server, "/small", "slow")
    assert answer.text == "small" and seconds >= 0.3, seconds
    assert timed(server, "/small", "fast")[0].text == "small"
    shown = network(server, "slow", "GET").json()
    assert shown == {"scope": "slow", "network": {"latencyMs": 300, "downKbps": None, "upKbps": None, "lossPercent": 0.0, "offline": False}}
    assert network(server, "slow", "DELETE").status_code == 200
    assert network(server, "slow", "GET").json()["network"] is None


def test_a_down_rate_paces_the_answer(server):
    network(server, "narrow", body={"downKbps": 400})  # 50,000 bytes a second
    answer, seconds = timed(server, "/big", "narrow")
    assert len(answer.content) == BIG
    assert seconds >= 1.5, "100 kB at 50 kB/s took %.2f s" % seconds


def test_a_profile_sets_its_figures(server):
    shown = network(server, "phone", body={"profile": "3g"}).json()["network"]
    assert shown == {"latencyMs": 100, "downKbps": 780, "upKbps": 330, "lossPercent": 0.0, "offline": False, "profile": "3g"}
    answer, seconds = timed(server, "/small", "phone")
    assert answer.status_code == 200 and seconds >= 0.1


def test_offline_closes_without_an_answer_and_journals_nothing(server):
    network(server, "tunnel", body={"offline": True})
    with pytest.raises(requests.ConnectionError):
        requests.get(server + "/small", headers={"X-Understudy-Scope": "tunnel"}, timeout=10)
    journal = requests.get(server + "/__admin/requests?scope=tunnel", timeout=10).json()
    assert journal["requests"] == []
    # Admin calls are never slowed or cut off.
    assert requests.get(server + "/__admin/mappings", headers={"X-Understudy-Scope": "tunnel"}, timeout=10).status_code == 200
    network(server, "tunnel", "DELETE")
    assert requests.get(server + "/small", headers={"X-Understudy-Scope": "tunnel"}, timeout=10).text == "small"


def test_bad_conditions_are_refused_with_the_field_named(server):
    for body, words in [({"profile": "5g"}, "unknown profile"), ({"latencyMs": 10 ** 9}, "latencyMs"),
                        ({"downKbps": 0}, "offline"), ({"upKbps": -3}, "upKbps"), ({"lossPercent": 150}, "lossPercent"),
                        ({"latency": 5}, "unknown field 'latency'"), ({"profile": "3g", "latencyMs": 5}, "not both"), ([], "expected")]:
        answer = network(server, "bad", body=body)
        assert answer.status_code == 400 and words in answer.json()["message"], (body, answer.text)
    answer = requests.put(server + "/__admin/scopes/bad/network", data="nope", timeout=10)
    assert answer.status_code == 400 and "not JSON" in answer.json()["message"]
    assert network(server, "no good", body={"latencyMs": 1}).status_code in (400, 404)
    assert network(server, "bad", "GET").json()["network"] is None, "nothing of a refused call was kept"


def test_serve_network_sets_the_default_scope():
    with tempfile.TemporaryDirectory() as stubs:
        with serve(stubs, "--network", "edge") as base:
            requests.post(base + "/__admin/mappings", json={"request": {"urlPath": "/p"}, "response": {"body": "p"}}, timeout=10)
            started = time.monotonic()
            assert requests.get(base + "/p", timeout=30).text == "p"
            assert time.monotonic() - started >= 0.4
            assert network(base, "default", "GET").json()["network"]["profile"] == "edge"
