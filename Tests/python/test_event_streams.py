"""Server-Sent Events stubs through the built server: events in order with their delays, the
standard's wire form (ids, names, retry, multi-line data), `Last-Event-ID` on reconnect, repeating
and kept-open streams with heartbeats, a client that leaves mid-stream, streams per scope, and a
stream over TLS through device mode's tunnel (the chunked answer works on both kinds of connection)."""
import json
import os
import socket
import ssl
import tempfile
import time

import pytest
import requests

from understudy_server import serve, tunnel

PRICES = {
    "request": {"method": "GET", "urlPath": "/prices"},
    "response": {"status": 200, "eventStream": {"events": [
        {"id": "1", "event": "price", "data": "{\"bid\": 101.5}", "retry": 2000},
        {"id": "2", "event": "price", "jsonData": {"bid": 101.7}, "delayMs": 300},
        {"id": "3", "data": "line one\nline two", "comment": "two lines", "delayMs": 300},
    ]}},
}
TICKER = {
    "request": {"method": "GET", "urlPath": "/ticker"},
    "response": {"status": 200, "eventStream": {"events": [{"id": "a", "data": "tick", "delayMs": 50}, {"id": "b", "data": "tock"}],
                                                "repeat": True}},
}
HEARTBEAT = {
    "request": {"method": "GET", "urlPath": "/quiet"},
    "response": {"status": 200, "eventStream": {"events": [{"data": "hello"}], "keepOpen": True, "heartbeatMs": 100}},
}

ROOM = {
    "request": {"method": "GET", "urlPathTemplate": "/rooms/{room}/feed"},
    "response": {"status": 200, "transformers": ["response-template"], "eventStream": {"events": [
        {"id": "1", "event": "joined", "data": "room {{request.path.room}} for {{request.query.user}}"},
        {"id": "2", "jsonData": {"room": "{{request.path.room}}"}, "delayMs": 50},
    ]}},
}


@pytest.fixture(scope="module")
def server():
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "mappings"))
        for name, mapping in [("prices", PRICES), ("ticker", TICKER), ("quiet", HEARTBEAT), ("room", ROOM)]:
            json.dump(mapping, open(os.path.join(stubs, "mappings", name + ".json"), "w"))
        json.dump({"events.example.com": "stubs"}, open(os.path.join(stubs, "hosts.json"), "w"))
        with serve(stubs, "--ca-dir", os.path.join(stubs, "ca")) as url:
            yield url, os.path.join(stubs, "ca", "ca.pem")


def events(lines):
    """Events as the standard's parser makes them: {field: value}, data lines joined with \\n."""
    event, data = {}, []
    for line in lines:
        if line == "":
            if data:
                event["data"] = "\n".join(data)
            if event:
                yield event
            event, data = {}, []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            else:
                event[name] = value


def test_events_come_in_order_each_after_its_delay_then_the_stream_ends(server):
    url, _ = server
    started = time.monotonic()
    answer = requests.get(url + "/prices", stream=True, timeout=10)
    assert answer.headers["Content-Type"] == "text/event-stream; charset=utf-8" and answer.headers["Cache-Control"] == "no-cache"
    got = list(events(answer.iter_lines(decode_unicode=True)))
    assert got == [
        {"id": "1", "event": "price", "retry": "2000", "data": "{\"bid\": 101.5}"},
        {"id": "2", "event": "price", "data": "{\"bid\":101.7}"},
        {"id": "3", "data": "line one\nline two"},
    ]
    assert time.monotonic() - started >= 0.55, "each event after its own delay"


def test_a_templated_streams_data_is_rendered_for_each_request(server):
    url, _ = server
    for room, user in [("7", "ann"), ("12", "bo%0Aid:%20x")]:
        answer = requests.get(url + "/rooms/%s/feed?user=%s" % (room, user), stream=True, timeout=10)
        got = list(events(answer.iter_lines(decode_unicode=True)))
        shown = user.replace("%0A", "\n").replace("%20", " ")
        assert got == [{"id": "1", "event": "joined", "data": "room %s for %s" % (room, shown)},
                       {"id": "2", "data": json.dumps({"room": room}, separators=(",", ":"))}], got


def test_a_client_that_reconnects_with_last_event_id_gets_what_followed(server):
    url, _ = server
    answer = requests.get(url + "/prices", headers={"Last-Event-ID": "2"}, stream=True, timeout=10)
    assert [event["id"] for event in events(answer.iter_lines(decode_unicode=True))] == ["3"]


def test_a_repeating_stream_starts_over_until_the_client_leaves(server):
    url, _ = server
    with requests.get(url + "/ticker", stream=True, timeout=10) as answer:
        got = []
        for event in events(answer.iter_lines(decode_unicode=True)):
            got.append(event["data"])
            if len(got) == 5:
                break
    assert got == ["tick", "tock", "tick", "tock", "tick"]
    # The client left mid-stream: the server stops writing to it and goes on serving.
    time.sleep(0.2)
    assert requests.get(url + "/__admin/health", timeout=5).status_code == 200


def test_a_kept_open_stream_sends_heartbeats(server):
    url, _ = server
    host, port = url.replace("http://", "").split(":")
    client = socket.create_connection((host, int(port)), timeout=5)
    client.sendall(b"GET /quiet HTTP/1.1\r\nHost: x\r\n\r\n")
    received = b""
    deadline = time.monotonic() + 5
    while received.count(b":\n\n") < 2 and time.monotonic() < deadline:
        received += client.recv(4096)
    assert b"data: hello\n\n" in received and received.count(b":\n\n") >= 2
    client.close()
    time.sleep(0.3)
    assert requests.get(url + "/__admin/health", timeout=5).status_code == 200


def test_streams_belong_to_their_scope_and_bad_ones_are_refused_with_where(server):
    url, _ = server
    mapping = {"request": {"urlPath": "/mine"}, "response": {"eventStream": {"events": [{"data": "only in a"}]}}}
    assert requests.post(url + "/__admin/mappings", json=mapping, headers={"X-Understudy-Scope": "a"}, timeout=5).status_code == 201
    assert requests.get(url + "/mine", headers={"X-Understudy-Scope": "b"}, timeout=5).status_code == 404
    assert "data: only in a" in requests.get(url + "/mine", headers={"X-Understudy-Scope": "a"}, timeout=5).text
    for stream, field in [({"events": [{"id": "1\n2", "data": "x"}]}, "/response/eventStream/events/0/id"),
                          ({"events": [{"data": "x"}], "repeat": True}, "/response/eventStream/repeat"),
                          ({"events": [], "mystery": 1}, "/response/eventStream/mystery")]:
        refused = requests.post(url + "/__admin/mappings", json={"request": {"urlPath": "/bad"}, "response": {"eventStream": stream}}, timeout=5)
        assert refused.status_code == 422 and refused.json()["errors"][0]["source"]["pointer"] == field, refused.text


def test_a_stream_over_tls_through_device_modes_tunnel(server):
    url, ca_file = server
    connection = tunnel(url, "events.example.com:443")
    with ssl.create_default_context(cafile=ca_file).wrap_socket(connection, server_hostname="events.example.com") as tls:
        tls.sendall(b"GET /prices HTTP/1.1\r\nHost: events.example.com\r\nConnection: close\r\n\r\n")
        reply = b""
        while chunk := tls.recv(65536):
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 200") and b"Transfer-Encoding: chunked" in reply
    assert b"data: line one\n" in reply and b"data: line two\n" in reply
