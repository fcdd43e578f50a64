"""Webhooks of stub files, through the built server: a receiver of Python's own on loopback gets the
callback after the app's answer, in the trigger's scope; a webhook to a host hosts.json maps comes
back to the server itself; the trigger's serve event lists both as sub-events."""
import http.server
import json
import os
import signal
import subprocess
import tempfile
import threading
import time

import pytest
import requests

from understudy_server import BINARY, namespace_with_hosts, serve

TIMEOUT = 10


class Receiver(http.server.BaseHTTPRequestHandler):
    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Receiver.received.append((self.path, dict(self.headers), body.decode()))
        self.send_response(201)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *arguments):
        pass


def wait_for(predicate):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_stub_files_webhooks_reach_a_receiver_and_the_servers_own_hosts():
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory() as stubs:
            os.makedirs(os.path.join(stubs, "mappings"))
            with open(os.path.join(stubs, "hosts.json"), "w") as hosts:
                json.dump({"orders.example.com": "stubs"}, hosts)
            mapping = {
                "request": {"method": "POST", "urlPath": "/checkout"},
                "response": {"status": 200, "jsonBody": {"accepted": True}},
                "serveEventListeners": [
                    {"name": "webhook", "parameters": {
                        "method": "POST", "url": "http://127.0.0.1:%d/paid" % receiver.server_address[1],
                        "headers": {"Content-Type": "application/json"},
                        "body": "{\"order\": \"{{jsonPath originalRequest.body '$.order'}}\"}"}},
                    {"name": "webhook", "parameters": {"method": "PUT", "url": "https://orders.example.com/orders/{{jsonPath originalRequest.body '$.order'}}"}},
                ],
            }
            shipped = {"request": {"method": "PUT", "urlPathPattern": "/orders/.*", "host": {"equalTo": "orders.example.com"}},
                       "response": {"status": 204}}
            for name, content in (("checkout.json", mapping), ("shipped.json", shipped)):
                with open(os.path.join(stubs, "mappings", name), "w") as file:
                    json.dump(content, file)
            with serve(stubs, "--no-watch", "--allow-webhook-host", "hooks.example.net") as base:
                answer = requests.post(base + "/checkout", json={"order": "A-17"}, headers={"X-Understudy-Scope": "ci-4"}, timeout=TIMEOUT)
                assert answer.status_code == 200 and answer.json() == {"accepted": True}
                assert wait_for(lambda: Receiver.received), "the receiver got nothing"
                path, headers, body = Receiver.received[0]
                assert path == "/paid" and json.loads(body) == {"order": "A-17"}
                assert headers.get("X-Understudy-Scope") == "ci-4"

                def checkout_events():
                    events = requests.get(base + "/__admin/requests?scope=ci-4", timeout=TIMEOUT).json()["requests"]
                    return next(e for e in events if e["request"]["url"] == "/checkout").get("subEvents", [])
                assert wait_for(lambda: len(checkout_events()) == 4), checkout_events()
                by_url = {e["data"].get("absoluteUrl"): e for e in checkout_events() if e["type"] == "WEBHOOK_REQUEST"}
                assert set(by_url) == {"http://127.0.0.1:%d/paid" % receiver.server_address[1], "https://orders.example.com/orders/A-17"}
                statuses = sorted(e["data"]["status"] for e in checkout_events() if e["type"] == "WEBHOOK_RESPONSE")
                assert statuses == [201, 204], checkout_events()
                # The mapped host's webhook came back here, in the same scope.
                urls = [e["request"]["url"] for e in requests.get(base + "/__admin/requests?scope=ci-4", timeout=TIMEOUT).json()["requests"]]
                assert "/orders/A-17" in urls, urls
    finally:
        receiver.shutdown()


def test_webhook_hosts_are_judged_by_the_addresses_they_resolve_to_not_by_their_spelling(tmp_path):
    """Issue 47: `127.evil.test`, `127.0.0.1.nip.io` and `evil.localhost` passed for loopback by
    their text. Here /etc/hosts (in a mount namespace) points them at 0.0.0.0, an address that is
    not loopback (Linux would still connect it to this machine, so even a wrong answer sends
    nothing out), and a name of no special spelling at 127.0.0.1: only that one is sent."""
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost dev.test\n0.0.0.0 127.evil.test 127.0.0.1.nip.io evil.localhost\n")
    wrap = namespace_with_hosts(hosts, "dev.test", "127.0.0.1")
    if wrap is None:
        pytest.skip("no mount namespace for a test /etc/hosts here (Linux's unshare)")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    Receiver.received = []
    port = receiver.server_address[1]
    names = ["127.evil.test", "127.0.0.1.nip.io", "evil.localhost", "dev.test"]
    stubs = tmp_path / "stubs"
    (stubs / "mappings").mkdir(parents=True)
    mapping = {"request": {"urlPath": "/names"}, "response": {"status": 200},
               "serveEventListeners": [{"name": "webhook", "parameters": {"method": "POST", "url": "http://%s:%d/%s" % (name, port, name)}}
                                       for name in names]}
    (stubs / "mappings" / "names.json").write_text(json.dumps(mapping))
    port_file = tmp_path / "port"
    process = subprocess.Popen(wrap + [BINARY, "serve", "--port", "0", "--port-file", str(port_file), "--stubs", str(stubs), "--no-watch"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=dict(os.environ, UNDERSTUDY_CA_DIR=str(tmp_path / "ca")))
    try:
        assert wait_for(lambda: port_file.exists() and port_file.read_text().strip()), "understudy did not start"
        base = "http://127.0.0.1:%s" % port_file.read_text().strip()
        assert wait_for(lambda: _healthy(base))
        assert requests.get(base + "/names", timeout=TIMEOUT).status_code == 200

        def events():
            served = requests.get(base + "/__admin/requests", timeout=TIMEOUT).json()["requests"]
            return next(e for e in served if e["request"]["url"] == "/names").get("subEvents", [])
        assert wait_for(lambda: len(events()) >= 5), events()
        time.sleep(0.3)
        sent = [e["data"]["absoluteUrl"] for e in events() if e["type"] == "WEBHOOK_REQUEST"]
        assert sent == ["http://dev.test:%d/dev.test" % port], events()
        refused = [e["data"]["message"] for e in events() if e["type"] == "ERROR"]
        for name in names[:3]:
            assert any(("not sent to %s (it resolves to 0.0.0.0)" % name) in message for message in refused), refused
        assert [path for path, _, _ in Receiver.received] == ["/dev.test"]
    finally:
        receiver.shutdown()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def _healthy(base):
    try:
        return requests.get(base + "/__admin/health", timeout=TIMEOUT).status_code == 200
    except requests.RequestException:
        return False
