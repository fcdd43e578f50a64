"""HAR export of the journal: read by haralyzer (a HAR library no one here wrote), secrets redacted
as a recording redacts them, a gzip answer's text decoded; written by `understudy export-har`,
imported again by `understudy import-har` and replayed with the same answers."""
import base64
import gzip
import json
import os
import subprocess
import tempfile

import requests
from haralyzer import HarEntry, HarParser

from understudy_server import BINARY, serve

ORDERS = {"orders": [{"id": 1, "total": 12.5}, {"id": 2, "total": 3}]}


def write_stubs(stubs):
    os.makedirs(os.path.join(stubs, "mappings"))
    mappings = {
        "orders.json": {"request": {"method": "GET", "urlPath": "/orders"}, "response": {
            "status": 200, "headers": {"Content-Type": "application/json", "Content-Encoding": "gzip"},
            "base64Body": base64.b64encode(gzip.compress(json.dumps(ORDERS).encode())).decode()}},
        "login.json": {"request": {"method": "POST", "urlPath": "/login"}, "response": {
            "status": 200, "jsonBody": {"welcome": "ann"}, "headers": {"Set-Cookie": "SESSION=abcdef123456; Path=/"}}},
        "logo.json": {"request": {"urlPath": "/logo.png"}, "response": {
            "status": 200, "base64Body": base64.b64encode(bytes(range(256))).decode(), "headers": {"Content-Type": "image/png"}}},
    }
    for name, mapping in mappings.items():
        with open(os.path.join(stubs, "mappings", name), "w") as file:
            json.dump(mapping, file)


def session(url, scope):
    headers = {"X-Understudy-Scope": scope}
    answers = [requests.get(url + "/orders?page=1&access_token=tok-123456", headers=dict(headers, Authorization="Bearer very-secret-1"))]
    answers.append(requests.post(url + "/login", json={"user": "ann", "password": "hunter22"}, headers=headers))
    answers.append(requests.get(url + "/logo.png", headers=headers))
    answers.append(requests.get(url + "/missing", headers=headers))
    return answers


def test_the_journal_as_har_reads_in_haralyzer_with_secrets_redacted_and_replays_after_import():
    with tempfile.TemporaryDirectory() as stubs, tempfile.TemporaryDirectory() as scratch:
        write_stubs(stubs)
        with serve(stubs) as url:
            answers = session(url, "har-1")
            assert [answer.status_code for answer in answers] == [200, 200, 200, 404]
            har = requests.get(url + "/__admin/requests?format=har&scope=har-1").json()
            text = json.dumps(har)
            for secret in ("tok-123456", "very-secret-1", "hunter22", "abcdef123456"):
                assert secret not in text, secret
            parser = HarParser(har)
            assert parser.creator["name"] == "Understudy"
            entries = [HarEntry(entry) for entry in har["log"]["entries"]]
            assert [entry.request.method for entry in entries] == ["GET", "POST", "GET", "GET"]
            assert [entry.status for entry in entries] == [200, 200, 200, 404]
            orders = entries[0]
            assert json.loads(orders.response.text) == ORDERS, "the gzip answer's text decoded"
            assert orders.response.raw_entry["content"]["size"] == len(json.dumps(ORDERS))
            assert dict((pair["name"], pair["value"]) for pair in orders.request.raw_entry["queryString"]) == {
                "page": "1", "access_token": "REDACTED"}
            assert orders.raw_entry["_understudy"]["scope"] == "har-1" and orders.raw_entry["_understudy"]["servedBy"] == "stubs"
            assert json.loads(entries[1].request.raw_entry["postData"]["text"]) == {"user": "ann", "password": "REDACTED"}
            logo = entries[2].response.raw_entry["content"]
            assert logo["encoding"] == "base64" and base64.b64decode(logo["text"]) == bytes(range(256))
            assert entries[3].raw_entry["_understudy"]["servedBy"] is None
            for entry in har["log"]["entries"]:
                assert entry["time"] == sum(value for value in entry["timings"].values() if value > 0)
            # The command writes the same, and import-har turns it back into stubs.
            exported = os.path.join(scratch, "session.har")
            subprocess.run([BINARY, "export-har", "--url", url, "--scope", "har-1", "--out", exported], check=True, capture_output=True)
            assert [entry["request"]["url"] for entry in json.load(open(exported))["log"]["entries"]] == [
                entry["request"]["url"] for entry in har["log"]["entries"]]
        replay = os.path.join(scratch, "replay")
        os.makedirs(os.path.join(replay, "mappings"))
        subprocess.run([BINARY, "import-har", exported, "--out", os.path.join(replay, "recorded", "session")], check=True, capture_output=True)
        with serve(replay) as url:
            again = requests.get(url + "/orders?page=1&access_token=another-one")
            assert again.status_code == 200 and again.json() == ORDERS, "the same answer, whatever token is sent"
            assert requests.get(url + "/logo.png").content == bytes(range(256))
            assert requests.post(url + "/login", json={"user": "ann", "password": "x"}).json() == {"welcome": "ann"}


def test_a_websocket_session_is_exported_as_chrome_writes_one_and_replays_after_import():
    from websockets.sync.client import connect
    greeting = {"name": "Greeting", "trigger": {"type": "message", "channel": {"type": "websocket", "initiatingRequestPattern": {"urlPath": "/chat"}},
                                                "message": {"body": {"equalTo": "hello"}}},
                "actions": [{"type": "send", "channelTarget": {"type": "originating"}, "message": {"body": {"data": "hi there"}}}]}
    with tempfile.TemporaryDirectory() as stubs, tempfile.TemporaryDirectory() as scratch:
        os.makedirs(os.path.join(stubs, "message-mappings"))
        json.dump(greeting, open(os.path.join(stubs, "message-mappings", "greeting.json"), "w"))
        with serve(stubs) as url:
            with connect(url.replace("http://", "ws://") + "/chat?room=1", additional_headers={"X-Understudy-Scope": "ws-har"}, open_timeout=30) as channel:
                channel.send("hello")
                assert channel.recv(timeout=10) == "hi there"
            requests.get(url + "/before-nothing", headers={"X-Understudy-Scope": "ws-har"})
            har = requests.get(url + "/__admin/requests?format=har&scope=ws-har").json()
        entries = har["log"]["entries"]
        assert [entry["response"]["status"] for entry in entries] == [101, 404], "oldest first, sessions among the exchanges"
        session = entries[0]
        assert session["_resourceType"] == "websocket" and session["request"]["url"].startswith("ws://")
        assert session["request"]["url"].endswith("/chat?room=1")
        assert [(message["type"], message["data"], message["opcode"]) for message in session["_webSocketMessages"]] == [
            ("send", "hello", 1), ("receive", "hi there", 1)]
        assert all(message["time"] > 1.7e9 for message in session["_webSocketMessages"])
        assert session["serverIPAddress"] == "127.0.0.1" and entries[1]["serverIPAddress"] == "127.0.0.1"
        assert HarEntry(session).status == 101
        # import-har makes the session message mappings that answer the same.
        exported = os.path.join(scratch, "ws.har")
        json.dump(har, open(exported, "w"))
        replay = os.path.join(scratch, "replay")
        os.makedirs(os.path.join(replay, "mappings"))
        done = subprocess.run([BINARY, "import-har", exported, "--out", os.path.join(replay, "recorded", "ws")], capture_output=True, text=True)
        assert done.returncode == 0 and "1 WebSocket session(s)" in done.stdout, done.stdout + done.stderr
        with serve(replay) as url:
            with connect(url.replace("http://", "ws://") + "/chat?room=1", open_timeout=30) as channel:
                channel.send("hello")
                assert channel.recv(timeout=10) == "hi there"
