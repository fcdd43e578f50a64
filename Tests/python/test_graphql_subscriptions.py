"""GraphQL subscriptions over WebSocket (graphql-transport-ws, as graphql-ws and Apollo speak it):
a stub whose eventStream gives the results, matched like a query; the protocol's handshake, ping,
errors and closing codes; and a subscription through device mode's tunnel, in a device's scope."""
import json
import os
import tempfile
import time

import pytest
import requests
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from understudy_server import serve, tunnel

PROTOCOL = "graphql-transport-ws"
SUBSCRIPTION = "subscription OnReview($episode: String!) { reviewAdded(episode: $episode) { stars commentary } }"


def stub(episode, events, keep_open=False):
    return {
        "request": {"urlPath": "/graphql", "customMatcher": {"name": "graphql-body-matcher", "parameters": {
            "query": SUBSCRIPTION, "variables": {"episode": episode}, "operationName": "OnReview"}}},
        "response": {"eventStream": {"events": events, "keepOpen": keep_open}},
    }


def subscribe(socket, id, episode, query=SUBSCRIPTION):
    socket.send(json.dumps({"id": id, "type": "subscribe", "payload": {
        "query": query, "variables": {"episode": episode}, "operationName": "OnReview"}}))


def receive(socket):
    return json.loads(socket.recv(timeout=5))


@pytest.fixture(scope="module")
def server():
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "mappings"))
        json.dump(stub("JEDI", [{"jsonData": {"data": {"reviewAdded": {"stars": 4, "commentary": "good"}}}},
                                {"jsonData": {"data": {"reviewAdded": {"stars": 5, "commentary": "great"}}}, "delayMs": 300}]),
                  open(os.path.join(stubs, "mappings", "jedi.json"), "w"))
        json.dump(stub("EMPIRE", [{"jsonData": {"data": {"reviewAdded": {"stars": 3, "commentary": None}}}}], keep_open=True),
                  open(os.path.join(stubs, "mappings", "empire.json"), "w"))
        json.dump({"api.example.com": "stubs"}, open(os.path.join(stubs, "hosts.json"), "w"))
        with serve(stubs, "--ca-dir", os.path.join(stubs, "ca")) as url:
            yield url


def opened(url, path="/graphql", **arguments):
    return connect(url.replace("http://", "ws://") + path, subprotocols=[PROTOCOL], open_timeout=30, **arguments)


def test_a_subscription_streams_its_stubs_results_then_completes(server):
    with opened(server) as socket:
        assert socket.subprotocol == PROTOCOL
        socket.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert receive(socket) == {"type": "connection_ack"}
        socket.send(json.dumps({"type": "ping"}))
        assert receive(socket) == {"type": "pong"}
        started = time.monotonic()
        # Reformatted: matched as a document, as queries are.
        subscribe(socket, "1", "JEDI", query="subscription OnReview($episode: String!) {\n reviewAdded(episode: $episode) { commentary stars }\n}")
        first = receive(socket)
        assert first == {"id": "1", "type": "next", "payload": {"data": {"reviewAdded": {"stars": 4, "commentary": "good"}}}}
        second = receive(socket)
        assert second["payload"]["data"]["reviewAdded"]["stars"] == 5 and time.monotonic() - started >= 0.25
        assert receive(socket) == {"id": "1", "type": "complete"}
        subscribe(socket, "2", "HOTH")
        error = receive(socket)
        assert error["id"] == "2" and error["type"] == "error" and "no stub answers subscription `OnReview`" in error["payload"][0]["message"]
    events = requests.get(server + "/__admin/messages").json()["messageServeEvents"]
    assert any('"type":"next"' in event["message"] for event in events), "sent messages are journaled"


def test_the_client_completes_a_subscription_that_stays_open_and_protocol_faults_close(server):
    with opened(server) as socket:
        socket.send(json.dumps({"type": "connection_init"}))
        receive(socket)
        subscribe(socket, "a", "EMPIRE")
        assert receive(socket)["payload"]["data"]["reviewAdded"]["stars"] == 3
        subscribe(socket, "a", "EMPIRE")
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=5)
        assert closed.value.rcvd.code == 4409
    with opened(server) as early:
        subscribe(early, "x", "JEDI")
        with pytest.raises(ConnectionClosed) as closed:
            early.recv(timeout=5)
        assert closed.value.rcvd.code == 4401, "subscribe before connection_init"
    with opened(server) as twice:
        twice.send(json.dumps({"type": "connection_init"}))
        receive(twice)
        twice.send(json.dumps({"type": "connection_init"}))
        with pytest.raises(ConnectionClosed) as closed:
            twice.recv(timeout=5)
        assert closed.value.rcvd.code == 4429
    with opened(server) as garbled:
        garbled.send("not json")
        with pytest.raises(ConnectionClosed) as closed:
            garbled.recv(timeout=5)
        assert closed.value.rcvd.code == 4400


def test_a_subscription_through_device_mode_in_a_devices_scope(server):
    # The device's own stub, in its scope (its proxy credentials' user name).
    scoped = stub("TATOOINE", [{"jsonData": {"data": {"reviewAdded": {"stars": 1, "commentary": "sandy"}}}}])
    assert requests.post(server + "/__admin/mappings", json=scoped, headers={"X-Understudy-Scope": "phone-7"}).status_code == 201
    with connect("ws://api.example.com/graphql", sock=tunnel(server, "api.example.com:80", scope="phone-7"),
                 subprotocols=[PROTOCOL], open_timeout=30) as device:
        device.send(json.dumps({"type": "connection_init"}))
        assert receive(device)["type"] == "connection_ack"
        subscribe(device, "1", "TATOOINE")
        assert receive(device)["payload"]["data"]["reviewAdded"]["commentary"] == "sandy"
        assert receive(device) == {"id": "1", "type": "complete"}
    # Another scope does not see the device's stub.
    with opened(server) as other:
        other.send(json.dumps({"type": "connection_init"}))
        receive(other)
        subscribe(other, "1", "TATOOINE")
        assert receive(other)["type"] == "error"


def test_another_subprotocol_is_echoed_for_message_stubs(server):
    with connect(server.replace("http://", "ws://") + "/chat", subprotocols=["chat.v2", "chat.v1"], open_timeout=30) as socket:
        assert socket.subprotocol == "chat.v2"
