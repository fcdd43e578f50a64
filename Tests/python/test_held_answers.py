"""Answers held back (a stub's delay, a scope's latency) do not hold the sockets of clients that
left: an app that gives up waiting closes its connection, and the server closes its side then,
not when the delay runs out. Counted in the kernel's table of TCP sockets: a socket the client
closed and the server has not is in CLOSE-WAIT on the server's port."""
import socket
import tempfile
import time

import pytest
import requests

from understudy_server import serve

CLIENTS = 50
CLOSE_WAIT = "08"


@pytest.fixture(scope="module")
def server():
    with tempfile.TemporaryDirectory() as stubs:
        with serve(stubs) as base:
            for mapping in [{"request": {"urlPath": "/slow"}, "response": {"body": "late", "fixedDelayMilliseconds": 30000}},
                            {"request": {"urlPath": "/brief"}, "response": {"body": "brief", "fixedDelayMilliseconds": 800}},
                            {"request": {"urlPath": "/plain"}, "response": {"body": "plain"}}]:
                requests.post(base + "/__admin/mappings", json=mapping, timeout=10).raise_for_status()
            yield base


def port_of(base):
    return int(base.rsplit(":", 1)[1])


def close_wait_sockets(port):
    """Sockets on `port` (local side) that their peer closed and this host has not."""
    count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"]:
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state = fields[1], fields[3]
            if int(local.rsplit(":", 1)[1], 16) == port and state == CLOSE_WAIT:
                count += 1
    return count


def send_and_leave(base, path, headers="", clients=CLIENTS):
    """Opens `clients` connections, sends each a request whose answer is held, and closes them."""
    port = port_of(base)
    connections = []
    for _ in range(clients):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        connection.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n" % (path, headers)).encode())
        connections.append(connection)
    # Every request is read (and its answer held) before the clients leave.
    time.sleep(0.3)
    for connection in connections:
        connection.close()


def wait_for_no_close_wait(port, within=3.0):
    deadline = time.monotonic() + within
    while True:
        held = close_wait_sockets(port)
        if held == 0 or time.monotonic() > deadline:
            return held
        time.sleep(0.05)


def test_a_stub_delay_frees_the_sockets_of_clients_that_left(server):
    send_and_leave(server, "/slow")
    held = wait_for_no_close_wait(port_of(server))
    assert held == 0, "%d sockets of clients that left are still held for the 30 s delay" % held
    assert requests.get(server + "/plain", timeout=10).text == "plain", "the server goes on answering"


def test_a_scopes_latency_frees_the_sockets_of_clients_that_left(server):
    answer = requests.put(server + "/__admin/scopes/laggy/network", json={"latencyMs": 30000}, timeout=10)
    answer.raise_for_status()
    send_and_leave(server, "/plain", headers="X-Understudy-Scope: laggy\r\n")
    held = wait_for_no_close_wait(port_of(server))
    assert held == 0, "%d sockets of clients that left are still held for the scope's 30 s latency" % held
    assert requests.get(server + "/plain", timeout=10).text == "plain"


def test_a_client_that_waits_still_gets_its_delayed_answer(server):
    started = time.monotonic()
    assert requests.get(server + "/brief", timeout=10).text == "brief"
    assert time.monotonic() - started >= 0.8


def test_a_request_whose_client_left_is_still_journaled_when_its_answer_falls_due(server):
    requests.delete(server + "/__admin/requests", timeout=10).raise_for_status()
    send_and_leave(server, "/brief", clients=1)
    deadline = time.monotonic() + 5
    urls = []
    while time.monotonic() < deadline:
        urls = [entry["request"]["url"] for entry in requests.get(server + "/__admin/requests", timeout=10).json()["requests"]]
        if "/brief" in urls:
            break
        time.sleep(0.1)
    assert "/brief" in urls, "verifying what the app sent finds the request it gave up waiting for"
