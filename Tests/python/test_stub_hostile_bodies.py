"""Hostile request bodies against every matcher and template helper of the differential corpus
(wiremock_differential/): empty, binary, invalid UTF-8, deep nesting, XML entities, huge. Each must
get an HTTP answer, the server must stay up, and no file may leak through an XML entity."""
import json
import os
import random
import shutil
import socket
import tempfile

import pytest
import requests

from understudy_server import serve

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wiremock_differential")


def corpus_routes():
    """(method, path) of every mapping in the corpus, with a concrete path for the patterns."""
    routes = set()
    for name in sorted(os.listdir(os.path.join(CORPUS, "mappings"))):
        if not name.startswith(("matchers", "templating")):
            continue
        with open(os.path.join(CORPUS, "mappings", name)) as file:
            for mapping in json.load(file)["mappings"]:
                request = mapping["request"]
                path = request.get("urlPath") or request.get("url") or "/t/request/x/y"
                if "urlPathPattern" in request:
                    path = {"/t/line/.*": "/t/line/a", "/t/request/.*": "/t/request/a/b"}.get(request["urlPathPattern"], "/m/pathpattern/abc")
                if "urlPattern" in request:
                    path = "/m/pattern/1?x=y"
                method = request.get("method", "ANY")
                routes.add(("POST" if method == "ANY" else method, path))
    return sorted(routes)


def hostile_bodies():
    rng = random.Random(18)
    deep_json = "[" * 100_000 + "]" * 100_000
    deep_object = '{"a":' * 50_000 + "1" + "}" * 50_000
    deep_xml = "<a>" * 100_000 + "</a>" * 100_000
    laughs = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              + "".join('<!ENTITY lol%d "%s">' % (i, ("&lol%d;" % (i - 1) if i else "&lol;") * 10) for i in range(1, 10))
              + ']><a>&lol9;</a>')
    external = '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>'
    soap_external = ('<?xml version="1.0"?><!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                     '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><getPrice><item>&x;</item></getPrice></soap:Body></soap:Envelope>')
    return {
        "empty": b"",
        "binary": bytes(rng.randrange(256) for _ in range(4096)),
        "invalid utf-8": b"\xff\xfe\xc3\x28{\"a\": \"\xe2\x82\"}",
        "nul bytes": b'{"name": "a\x00b"}\x00<a>\x00</a>',
        "deep json array": deep_json.encode(),
        "deep json object": deep_object.encode(),
        "deep xml": deep_xml.encode(),
        "billion laughs": laughs.encode(),
        "external entity": external.encode(),
        "soap external entity": soap_external.encode(),
        "huge": b"A" * (8 * 1024 * 1024),
        "huge json string": b'{"name": "' + b"x" * (4 * 1024 * 1024) + b'"}',
        "form junk": b"a=%ZZ&=&&name=%00%ff&" + b"k=v&" * 10_000,
        "multipart junk": b"--XyZ\r\nContent-Disposition: form-data; name=\"info\r\n\r\n" + b"--XyZ" * 10_000,
    }


CONTENT_TYPES = ["application/json", "text/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=XyZ", None]


@pytest.fixture(scope="module")
def server():
    with tempfile.TemporaryDirectory() as scratch:
        root = os.path.join(scratch, "stubs")
        shutil.copytree(CORPUS, root)
        with serve(root) as base:
            yield base


def test_hostile_bodies_get_answers_and_leave_the_server_up(server):
    routes = corpus_routes()
    assert len(routes) > 30, "the corpus' routes were not found"
    rng = random.Random(1818)
    with requests.Session() as session:
        for label, body in hostile_bodies().items():
            # Bodies of megabytes go to a sample of the routes, to keep the test short.
            for method, path in (routes if len(body) < 1_000_000 else rng.sample(routes, 8)):
                content_type = rng.choice(CONTENT_TYPES)
                headers = {"Content-Type": content_type} if content_type else {}
                method = "POST" if method == "GET" and body else method
                answer = session.request(method, server + path, data=body, headers=headers, timeout=60)
                assert 200 <= answer.status_code < 600, "%s to %s %s" % (label, method, path)
                assert "root:" not in answer.text, "%s to %s %s leaked /etc/passwd" % (label, method, path)
            assert session.get(server + "/__admin/health", timeout=10).status_code == 200, "down after " + label


def test_a_request_cut_off_mid_body_leaves_the_server_up(server):
    host, port = server[len("http://"):].split(":")
    for path in ("/m/xml", "/m/json", "/t/json", "/m/multipart"):
        with socket.create_connection((host, int(port)), timeout=10) as connection:
            connection.sendall(("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\n\r\n<a><b>" % path).encode())
    assert requests.get(server + "/__admin/health", timeout=10).status_code == 200
