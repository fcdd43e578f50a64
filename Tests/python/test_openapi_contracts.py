"""API contracts (docs/contracts.md): the OpenAPI Initiative's example documents imported as stubs
and probed by schemathesis (a property-based API tester no one here wrote) with its conformance
checks; soft and hard validation over HTTP; a recording of a drifting upstream flagged; a HAR of
it checked by check-contract."""
import glob
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import pytest
import requests

from understudy_server import BINARY, ROOT, serve

# Fetched with the Python tools (Makefile): the OpenAPI Initiative's examples, as a PyPI sdist carries them.
EXAMPLES = os.path.join(ROOT, ".build", "venv", "oai-examples")
SCHEMATHESIS = os.path.join(os.path.dirname(sys.executable), "schemathesis")

# Each example with the path its first server serves it under.
SERVED_EXAMPLES = [
    ("v3.0/petstore.yaml", "/v1"),
    ("v3.0/petstore-expanded.yaml", "/v2"),
    ("v3.0/uspto.yaml", "/ds-api"),
    ("v3.0/api-with-examples.yaml", ""),
    ("v3.0/link-example.yaml", ""),
    ("v3.0/callback-example.yaml", ""),
    ("v3.1/tictactoe.yaml", ""),
]


def example(name):
    matches = glob.glob(os.path.join(EXAMPLES, "*", "tests", "examples", name))
    assert matches, "the OpenAPI examples are not in %s (make's Python setup fetches them)" % EXAMPLES
    return matches[0]


def import_openapi(spec, out):
    done = subprocess.run([BINARY, "import-openapi", spec, "--out", out], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.parametrize("name,base", SERVED_EXAMPLES)
def test_a_public_example_imported_is_a_mock_schemathesis_finds_no_fault_in(name, base):
    with tempfile.TemporaryDirectory() as stubs:
        import_openapi(example(name), stubs)
        assert os.path.exists(os.path.join(stubs, "openapi.yaml"))
        # Hard validation: any request or answer that broke the document would be a 400 or 502.
        with serve(stubs, "--validation", "hard") as url:
            run = subprocess.run(
                [SCHEMATHESIS, "run", os.path.join(stubs, "openapi.yaml"), "--url", url + base,
                 "--checks", "status_code_conformance,response_schema_conformance,content_type_conformance,not_a_server_error",
                 "--mode", "positive", "--max-examples", "25", "--seed", "1", "--no-color"],
                capture_output=True, text=True, timeout=300, cwd=stubs)  # its cache (.schemathesis/) goes there
            assert run.returncode == 0, run.stdout[-4000:]
            assert "passed" in run.stdout
            # What broke the contract: only schemathesis' own probes of paths the document lacks (refused with 400).
            broken = requests.get(url + "/__admin/requests?violations=true&scope=*").json()["requests"]
            for entry in broken:
                assert [(violation["in"], violation["pointer"]) for violation in entry["violations"]] == [("request", "path")], entry["violations"]


@pytest.mark.parametrize("name", ["v3.1/webhook-example.yaml", "v3.1/non-oauth-scopes.yaml"])
def test_examples_without_answers_still_import(name):
    with tempfile.TemporaryDirectory() as stubs:
        done = import_openapi(example(name), stubs)
        assert "imported" in done.stdout
        # No paths (webhooks only), or an operation documenting no answer: that one answers 200.
        with serve(stubs) as url:
            if "non-oauth" in name:
                assert requests.get(url + "/users").status_code == 200


SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Carts (this test's own)", "version": "1"},
    "paths": {
        "/carts/{id}": {
            "get": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "a cart", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Cart"}}}}},
            },
            "put": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "requestBody": {"required": True, "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Cart"}},
                    "application/xml": {"schema": {"type": "object"}}}},
                "responses": {"204": {"description": "saved"}},
            },
        }
    },
    "components": {"schemas": {"Cart": {
        "type": "object", "required": ["items"],
        "properties": {"items": {"type": "array", "items": {"type": "object", "required": ["sku"], "properties": {"sku": {"type": "string"}}}}}}}},
}

# A stub that keeps the contract, and one whose answer breaks it (a renamed field).
STUBS = {
    "good.json": {"request": {"method": "GET", "urlPath": "/carts/1"}, "response": {
        "status": 200, "jsonBody": {"items": [{"sku": "A"}]}, "headers": {"Content-Type": "application/json"}}},
    "drift.json": {"request": {"method": "GET", "urlPath": "/carts/2"}, "response": {
        "status": 200, "jsonBody": {"items": [{"code": "A"}]}, "headers": {"Content-Type": "application/json"}}},
    "put.json": {"request": {"method": "PUT", "urlPathPattern": "/carts/.*"}, "response": {"status": 204}},
    "other.json": {"request": {"method": "GET", "urlPath": "/health-check"}, "response": {"status": 200, "body": "ok"}},
}


def write_contract_stubs(stubs, validation=None):
    os.makedirs(os.path.join(stubs, "mappings"))
    with open(os.path.join(stubs, "openapi.json"), "w") as file:
        json.dump(SPEC, file)
    for name, mapping in STUBS.items():
        with open(os.path.join(stubs, "mappings", name), "w") as file:
            json.dump(mapping, file)
    if validation:
        with open(os.path.join(stubs, "understudy.json"), "w") as file:
            json.dump({"openapi": {"validation": validation}}, file)


def test_soft_validation_answers_as_usual_and_keeps_what_broke_the_contract():
    with tempfile.TemporaryDirectory() as stubs:
        write_contract_stubs(stubs)
        with serve(stubs) as url:
            assert requests.get(url + "/carts/1").status_code == 200
            drift = requests.get(url + "/carts/2")
            assert drift.status_code == 200 and drift.json() == {"items": [{"code": "A"}]}
            assert requests.put(url + "/carts/abc", json={"items": []}).status_code == 204
            # Not in the contract: not checked when soft.
            assert requests.get(url + "/health-check").text == "ok"
            broken = requests.get(url + "/__admin/requests?violations=true").json()["requests"]
            found = {entry["request"]["url"]: entry["violations"] for entry in broken}
            assert set(found) == {"/carts/2", "/carts/abc"}
            assert found["/carts/2"] == [{"in": "response", "operation": "GET /carts/{id}", "pointer": "/items/0",
                                          "specLocation": "#/components/schemas/Cart/properties/items/items/required",
                                          "rule": "'sku' is missing"}]
            assert found["/carts/abc"][0]["pointer"] == "path.id"
            metrics = requests.get(url + "/__admin/metrics").text
            assert 'understudy_contract_violations_total{in="request"} 1' in metrics
            assert 'understudy_contract_violations_total{in="response"} 1' in metrics


def test_hard_validation_refuses_what_breaks_the_contract_and_names_it():
    with tempfile.TemporaryDirectory() as stubs:
        write_contract_stubs(stubs, validation="hard")
        with serve(stubs) as url:
            assert requests.get(url + "/carts/1").status_code == 200
            answer = requests.get(url + "/carts/2")
            assert answer.status_code == 502
            assert answer.json()["violations"][0]["pointer"] == "/items/0"
            assert "'sku' is missing" in answer.json()["message"]
            request = requests.put(url + "/carts/1", json={"items": [{"sku": 5}]})
            assert request.status_code == 400
            assert request.json()["violations"] == [{"in": "request", "operation": "PUT /carts/{id}", "pointer": "/items/0/sku",
                                                     "specLocation": "#/components/schemas/Cart/properties/items/items/properties/sku/type",
                                                     "rule": "expected string, found integer"}]
            # A valid XML body passes (its schema is not applied to XML); a path the contract lacks does not.
            assert requests.put(url + "/carts/1", data="<cart/>", headers={"Content-Type": "application/xml"}).status_code == 204
            unknown = requests.get(url + "/health-check")
            assert unknown.status_code == 400 and unknown.json()["violations"][0]["pointer"] == "path"
            assert requests.put(url + "/carts/1").json()["violations"][0]["rule"] == "the body is required but empty"


def test_a_spec_that_does_not_read_stops_the_start_saying_where():
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "mappings"))
        with open(os.path.join(stubs, "openapi.yaml"), "w") as file:
            file.write("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          $ref: '#/components/responses/Nope'\n")
        done = subprocess.run([BINARY, "serve", "--port", "0", "--stubs", stubs], capture_output=True, text=True, timeout=30)
        assert done.returncode != 0
        assert "openapi.yaml:8" in done.stderr and "'#/components/responses/Nope' points at nothing" in done.stderr


class DriftingUpstream(http.server.BaseHTTPRequestHandler):
    """The real backend, which has renamed `sku` to `code` in cart 2."""

    def do_GET(self):
        body = json.dumps({"items": [{"sku": "A"}]} if self.path == "/carts/1" else {"items": [{"code": "B"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


def test_a_recording_of_a_drifting_upstream_is_flagged_and_its_har_checked():
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), DriftingUpstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as scratch:
        spec = os.path.join(scratch, "carts.json")
        with open(spec, "w") as file:
            json.dump(SPEC, file)
        port_file = os.path.join(scratch, "port")
        record = subprocess.Popen(
            [BINARY, "record", "--port", "0", "--port-file", port_file, "--target", "http://127.0.0.1:%d" % upstream.server_port,
             "--out", os.path.join(scratch, "recorded"), "--openapi", spec],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 30
            while not os.path.exists(port_file) or not open(port_file).read().strip():
                assert time.time() < deadline and record.poll() is None
                time.sleep(0.05)
            url = "http://127.0.0.1:%s" % open(port_file).read().strip()
            assert requests.get(url + "/carts/1").json() == {"items": [{"sku": "A"}]}
            # The real answer is passed on as it came, and marked.
            assert requests.get(url + "/carts/2").json() == {"items": [{"code": "B"}]}
            har = requests.get(url + "/__admin/requests?format=har").content
        finally:
            record.send_signal(signal.SIGINT)
            out, err = record.communicate(timeout=30)
        upstream.shutdown()
        assert record.returncode == 0, err
        assert "contract drift against %s: 1 of 2 answers break it" % spec in out
        assert "GET /carts/{id}  response /items/0: 'sku' is missing" in out

        har_file = os.path.join(scratch, "session.har")
        with open(har_file, "wb") as file:
            file.write(har)
        check = subprocess.run([BINARY, "check-contract", "--openapi", spec, har_file], capture_output=True, text=True, timeout=30)
        assert check.returncode == 1
        assert "GET /carts/{id}  response /items/0: 'sku' is missing" in check.stdout
        assert "checked 2 of 2 exchanges" in check.stdout
