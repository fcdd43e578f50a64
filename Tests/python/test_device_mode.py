"""Device mode: understudy as the HTTP(S) proxy of a phone, a simulator or a browser. Real clients
(curl, requests, headless Chromium) reach the real host names (www.ibm.com, maps.googleapis.com,
rally1.rallydev.com, madisons.example.com) through the proxy, trusting only the server's local CA;
hosts stubs/hosts.json does not name get a 502 page and nothing leaves the machine, unless
--pass-through lets them through. Every server uses a CA directory of its own, made in a temporary
directory, never ~/.understudy/ca."""
import contextlib
import http.client
import html
import json
import os
import re
import shutil
import socket
import ssl
import stat
import subprocess
import tempfile
import threading
import time
import urllib.request
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from understudy_server import BINARY, ROOT, serve

STUBS = os.path.join(ROOT, "stubs")
LOTUS_FEED = "https://www.ibm.com/developerworks/mydeveloperworks/news/atom/stories/public"
GEOCODE = "http://maps.googleapis.com/maps/api/geocode/xml?address=94086"
RALLY_AUTHORIZE = "https://rally1.rallydev.com/slm/webservice/v2.0/security/authorize"
STOREFRONT = "madisons.example.com/webapp/wcs/stores/servlet/"
STORE_QUERY = "storeId=10152&catalogId=10051&langId=-1"
ATOM = {"a": "http://www.w3.org/2005/Atom", "os": "http://a9.com/-/spec/opensearch/1.1/"}
TIMEOUT = 20  # seconds, for every client request


class Device:
    """A running device-mode server: its base URL (also the proxy), port and the CA it uses."""

    def __init__(self, base, ca_dir, ca_file):
        self.base = base
        self.port = int(base.rsplit(":", 1)[1])
        self.proxy = base
        self.ca_dir = ca_dir
        self.ca_file = ca_file

    def journal(self):
        with urllib.request.urlopen(self.base + "/__admin/requests", timeout=TIMEOUT) as answer:
            return json.load(answer)["requests"]


def export_ca(ca_dir, destination, der=False):
    """`understudy ca --ca-dir DIR --export FILE [--der]`."""
    command = [BINARY, "ca", "--ca-dir", ca_dir, "--export", destination] + (["--der"] if der else [])
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, "%s failed (%s): %s%s" % (command, done.returncode, done.stdout, done.stderr)
    return done.stdout


@contextlib.contextmanager
def device_server(*arguments):
    """A device-mode server on a free port with a CA directory of its own (made by `understudy ca` as the fixture exports its certificate)."""
    with tempfile.TemporaryDirectory(prefix="understudy-device-") as scratch:
        ca_dir = os.path.join(scratch, "ca")
        with serve(STUBS, "--ca-dir", ca_dir, *arguments) as base:
            ca_file = os.path.join(scratch, "understudy-ca.pem")
            export_ca(ca_dir, ca_file)
            yield Device(base, ca_dir, ca_file)


@pytest.fixture(scope="module")
def device():
    """Offline device mode (no --pass-through): the mode a developer's phone uses."""
    with device_server() as server:
        yield server


@pytest.fixture(scope="module")
def pass_through():
    with device_server("--pass-through") as server:
        yield server


def need(command, package):
    path = shutil.which(command)
    if not path:
        pytest.fail("the %s command is needed (Debian: apt-get install %s; tools/install-deps.sh python)" % (command, package))
    return path


def curl(device, url, *options, ca=True):
    """curl through the proxy; returns (HTTP status, body bytes, curl's exit code, stderr)."""
    need("curl", "curl")
    with tempfile.NamedTemporaryFile() as body:
        command = ["curl", "--disable", "--silent", "--show-error", "--max-time", str(TIMEOUT), "--noproxy", "",
                   "--proxy", device.proxy, "--output", body.name, "--write-out", "%{http_code}"]
        if ca:
            command += ["--cacert", device.ca_file]
        done = subprocess.run(command + list(options) + [url], capture_output=True, timeout=TIMEOUT + 10)
        return int(done.stdout or b"0"), open(body.name, "rb").read(), done.returncode, done.stderr.decode()


def journal_entry(device, absolute_url):
    entries = [entry for entry in device.journal() if entry["request"]["absoluteUrl"] == absolute_url]
    assert entries, "the journal has no request for %s" % absolute_url
    return entries[0]


def atom_entries(feed_bytes):
    feed = ET.fromstring(feed_bytes)
    assert feed.tag == "{http://www.w3.org/2005/Atom}feed"
    return feed, feed.findall("a:entry", ATOM)


def assert_lotus_public_feed(feed_bytes):
    """Seed 004's feed: Lotus Connections' public news stories, page 1 of 20 entries."""
    feed, entries = atom_entries(feed_bytes)
    assert feed.find("a:title", ATOM).text == "Public updates"
    assert feed.find("os:itemsPerPage", ATOM).text == "20"
    assert int(feed.find("os:totalResults", ATOM).text) == 1026
    assert len(entries) == 20
    for entry in entries:
        title = entry.find("a:title", ATOM).text
        author = entry.find("a:author/a:name", ATOM).text
        # "Gustavo Gallagher posted a message to Dalia Dubois's board.": the actor, what they did.
        assert re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+ [a-z]+ .+\.", title), title
        assert title.startswith(author + " "), (author, title)
        assert entry.find("a:id", ATOM).text.startswith("urn:lsid:ibm.com:news:story-")


@contextlib.contextmanager
def listener():
    """A TCP listener on 127.0.0.1 that records each connection's first bytes and echoes them back."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    accepted = []
    stop = threading.Event()

    def run():
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with connection:
                connection.settimeout(5)
                try:
                    data = connection.recv(4096)
                    accepted.append(data)
                    connection.sendall(b"echo:" + data)
                except OSError as error:
                    accepted.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()


def raw_connect(device, target):
    """Sends `CONNECT target` to the proxy; returns the socket and the proxy's answer head."""
    return raw_request(device, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target))


def raw_request(device, text):
    """Sends `text` to the proxy as it is; returns the socket and the proxy's answer head."""
    connection = socket.create_connection(("127.0.0.1", device.port), timeout=TIMEOUT)
    connection.sendall(text.encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = connection.recv(4096)
        if not chunk:
            break
        answer += chunk
    return connection, answer.decode("latin-1")


# 1. curl ------------------------------------------------------------------------------------------

def test_curl_gets_the_lotus_feed_through_a_connect_tunnel(device):
    status, body, code, error = curl(device, LOTUS_FEED)
    assert code == 0 and status == 200, (code, status, error)
    assert_lotus_public_feed(body)
    entry = journal_entry(device, LOTUS_FEED)
    assert entry["request"]["browserProxyRequest"] is True
    assert entry["request"]["url"] == "/developerworks/mydeveloperworks/news/atom/stories/public"
    assert entry["request"]["headers"]["Host"] == "www.ibm.com"
    assert entry["responseDefinition"]["status"] == 200


def test_links_of_an_answer_over_tls_are_https(device):
    """A feed fetched as https://www.ibm.com/… links to https://www.ibm.com/…, and over http to http://."""
    for scheme in ("https", "http"):
        url = LOTUS_FEED.replace("https://", scheme + "://")
        status, body, code, error = curl(device, url)
        assert code == 0 and status == 200, (scheme, code, status, error)
        links = [link.get("href") for link in ET.fromstring(body).iter("{%s}link" % ATOM["a"])]
        own = [href for href in links if "www.ibm.com/developerworks" in href]
        assert own and all(href.startswith(scheme + "://www.ibm.com/") for href in own), (scheme, own[:5])


def test_curl_without_the_ca_refuses_the_certificate(device):
    # curl's own CA bundle only: the leaf for www.ibm.com is not trusted (exit 60), a real check.
    status, _, code, error = curl(device, LOTUS_FEED, ca=False)
    assert code == 60, (code, status, error)


def test_curl_gets_the_geocoder_over_plain_http(device):
    status, body, code, error = curl(device, GEOCODE)
    assert code == 0 and status == 200, (code, status, error)
    answer = ET.fromstring(body)
    assert answer.findtext("status") == "OK"
    result = answer.find("result")
    assert result.findtext("formatted_address") == "Sunnyvale, CA 94086, USA"
    postal = [c for c in result.findall("address_component") if "postal_code" in [t.text for t in c.findall("type")]]
    assert [c.findtext("long_name") for c in postal] == ["94086"]
    entry = journal_entry(device, GEOCODE)
    assert entry["request"]["browserProxyRequest"] is True
    assert entry["request"]["headers"]["Host"] == "maps.googleapis.com"


def test_plain_http_proxy_requests_are_matched_and_journaled_by_their_path(device):
    """An absolute-form request (GET http://host/path) must be the same request as the tunnelled
    GET /path with Host: host: stubs match urlPath /slm/..., and the journal's url is the path.
    The server under test keeps the whole absolute URL as the path instead (see the messages)."""
    rally = RALLY_AUTHORIZE.replace("https://", "http://")
    status, body, code, error = curl(device, rally, "--user", "tester@example.com:rally-secret")
    tunnelled, _, _, _ = curl(device, RALLY_AUTHORIZE, "--user", "tester@example.com:rally-secret")
    problems = []
    if tunnelled != 200 or status != 200:
        problems.append("GET %s (basic auth, through the proxy, plain HTTP) answered %s (the same over https: %s), "
                        "expected 200 from the stub rally-device.json maps at urlPath "
                        "/slm/webservice/v2.0/security/authorize; the server said: %s"
                        % (rally, status, tunnelled, body.decode(errors="replace").splitlines()[:4]))
    for url, path in [(GEOCODE, "/maps/api/geocode/xml?address=94086"), (rally, "/slm/webservice/v2.0/security/authorize")]:
        logged = journal_entry(device, url)["request"]["url"]
        if logged != path:
            problems.append("the journal's url for GET %s through the proxy is %r, expected the path %r "
                            "(as for tunnelled requests, and WireMock's journal)" % (url, logged, path))
    assert not problems, "\n".join(problems)


def test_curl_to_an_unmapped_https_host_gets_the_502_page(device):
    status, body, code, error = curl(device, "https://unmapped.invalid/x")
    assert code == 0 and status == 502, (code, status, error)
    page = body.decode()
    assert "Understudy does not answer for unmapped.invalid" in page
    assert "hosts.json" in page and '"unmapped.invalid": "stubs"' in page
    assert "--pass-through" in page
    assert journal_entry(device, "https://unmapped.invalid/x")["responseDefinition"]["status"] == 502


def test_offline_mode_never_connects_to_an_unmapped_host(device):
    with listener() as (port, accepted):
        # localhost is a name hosts.json does not map: the proxy answers itself, over TLS with a leaf
        # for localhost from its CA, and over plain HTTP.
        status, body, code, error = curl(device, "https://localhost:%d/x" % port)
        assert code == 0 and status == 502, (code, status, error)
        assert b"Understudy does not answer for localhost" in body
        status, body, code, error = curl(device, "http://localhost:%d/y" % port)
        assert code == 0 and status == 502, (code, status, error)
        assert b"Understudy does not answer for localhost" in body
        # An IP literal no entry names: refused outright. No port: a bad request.
        connection, answer = raw_connect(device, "127.0.0.1:%d" % port)
        connection.close()
        assert answer.startswith("HTTP/1.1 403 "), answer
        connection, answer = raw_connect(device, "localhost")
        connection.close()
        assert answer.startswith("HTTP/1.1 400 "), answer
        # A raw tunnel to localhost:port: whatever is sent goes to the proxy's own TLS server, not out.
        connection, answer = raw_connect(device, "localhost:%d" % port)
        with connection:
            assert answer.startswith("HTTP/1.1 200 "), answer
            connection.sendall(b"ping\r\n\r\n")
            connection.settimeout(5)
            try:
                connection.recv(4096)
            except OSError:
                pass
        time.sleep(0.5)
        assert accepted == [], "the proxy connected to the unmapped host: %r" % accepted


def test_pass_through_tunnels_and_forwards_to_the_real_host(pass_through):
    with listener() as (port, accepted):
        connection, answer = raw_connect(pass_through, "localhost:%d" % port)
        with connection:
            assert answer.startswith("HTTP/1.1 200 "), answer
            connection.sendall(b"ping through the tunnel")
            connection.settimeout(TIMEOUT)
            assert connection.recv(4096) == b"echo:ping through the tunnel"
        assert accepted == [b"ping through the tunnel"]


class Hello(BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("real host says hello to %s" % self.path).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


@contextlib.contextmanager
def real_host(tls_directory=None):
    """A small HTTP server on 127.0.0.1 ("the real host"); with TLS when given a certificate directory."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    if tls_directory:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(tls_directory, "cert.pem"), os.path.join(tls_directory, "key.pem"))
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_pass_through_reaches_real_http_and_https_servers(pass_through, tmp_path):
    need("openssl", "openssl")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost", "-keyout", str(tmp_path / "key.pem"),
                    "-out", str(tmp_path / "cert.pem")], check=True, capture_output=True, timeout=60)
    with real_host() as port:
        status, body, code, error = curl(pass_through, "http://localhost:%d/plain" % port)
        assert (code, status, body) == (0, 200, b"real host says hello to /plain"), error
    with real_host(str(tmp_path)) as port:
        # The real host's own certificate reaches curl: the tunnel is end to end, not terminated here.
        status, body, code, error = curl(pass_through, "https://localhost:%d/secret" % port,
                                         "--cacert", str(tmp_path / "cert.pem"))
        assert (code, status, body) == (0, 200, b"real host says hello to /secret"), error
    # Mapped hosts are still answered here.
    status, body, code, error = curl(pass_through, LOTUS_FEED)
    assert code == 0 and status == 200, (code, status, error)
    assert_lotus_public_feed(body)


# 2. requests --------------------------------------------------------------------------------------

def session_for(device, verify):
    session = requests.Session()
    session.trust_env = False  # no proxy or CA bundle from the environment
    session.proxies = {"http": device.proxy, "https": device.proxy}
    session.verify = verify
    return session


def test_requests_reads_the_lotus_feed_over_https(device):
    with session_for(device, device.ca_file) as session:
        answer = session.get(LOTUS_FEED, timeout=TIMEOUT)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("application/atom+xml")
    assert_lotus_public_feed(answer.content)


def test_requests_rally_authorize_with_and_without_credentials(device):
    with session_for(device, device.ca_file) as session:
        answer = session.get(RALLY_AUTHORIZE, auth=("tester@example.com", "rally-secret"), timeout=TIMEOUT)
        assert answer.status_code == 200, answer.text
        result = answer.json()["OperationResult"]
        assert result["SecurityToken"] == "stub-security-token-0001"
        assert result["Errors"] == []
        answer = session.get(RALLY_AUTHORIZE, timeout=TIMEOUT)
        assert answer.status_code == 401
        answer = session.get(RALLY_AUTHORIZE, auth=("tester@example.com", "wrong"), timeout=TIMEOUT)
        assert answer.status_code == 401


def test_requests_keeps_one_connection_alive_per_host(device, caplog):
    caplog.set_level("DEBUG", logger="urllib3.connectionpool")
    with session_for(device, device.ca_file) as session:
        for _ in range(3):
            assert session.get(RALLY_AUTHORIZE, auth=("tester@example.com", "rally-secret"), timeout=TIMEOUT).status_code == 200
            assert session.get(RALLY_AUTHORIZE, timeout=TIMEOUT).status_code == 401
            assert session.get(LOTUS_FEED, timeout=TIMEOUT).status_code == 200
            assert session.get(GEOCODE, timeout=TIMEOUT).status_code == 200
    opened = [record.getMessage() for record in caplog.records if record.getMessage().startswith(("Starting new", "Resetting dropped"))]
    # One tunnel per https host, one plain connection to the proxy for http: 12 requests, 3 connections.
    assert sorted(opened) == sorted(["Starting new HTTPS connection (1): rally1.rallydev.com:443",
                                     "Starting new HTTPS connection (1): www.ibm.com:443",
                                     "Starting new HTTP connection (1): 127.0.0.1:%d" % device.port]), opened


def test_plain_proxied_requests_keep_their_connection_unless_a_side_says_close(device):
    """HTTP/1.1 through a proxy is persistent (RFC 9112 9.3) whether or not the client sends the old
    Proxy-Connection header; Connection: close or Proxy-Connection: close ends it."""
    for headers, kept in (({}, True), ({"Proxy-Connection": "keep-alive"}, True), ({"Connection": "close"}, False),
                          ({"Proxy-Connection": "close"}, False)):
        connection = http.client.HTTPConnection("127.0.0.1", device.port, timeout=TIMEOUT)
        connection.connect()
        connection.auto_open = 0  # never reconnect behind the test's back
        answers = []
        try:
            for _ in range(3):
                connection.request("GET", GEOCODE, headers=headers)
                answer = connection.getresponse()
                answer.read()
                answers.append(answer.status)
        except (http.client.HTTPException, OSError):
            pass
        finally:
            connection.close()
        assert answers == ([200, 200, 200] if kept else [200]), (headers, answers)


def test_requests_with_only_the_system_cas_fails_the_certificate_check(device):
    with session_for(device, True) as session:
        with pytest.raises(requests.exceptions.SSLError) as failure:
            session.get(LOTUS_FEED, timeout=TIMEOUT)
    assert "CERTIFICATE_VERIFY_FAILED" in str(failure.value)


# 3. the CA endpoints and the CLI ------------------------------------------------------------------

def fetch(url):
    with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
        return answer.status, answer.headers.get("Content-Type", ""), answer.read()


def test_ca_pem_and_crt_are_what_the_cli_exports(device, tmp_path):
    exported = tmp_path / "exported.pem"
    export_ca(device.ca_dir, str(exported))
    status, content_type, pem = fetch(device.base + "/__admin/ca.pem")
    assert status == 200 and "pem" in content_type
    assert pem == exported.read_bytes()
    assert pem.startswith(b"-----BEGIN CERTIFICATE-----\n") and pem.count(b"-----BEGIN CERTIFICATE-----") == 1
    assert pem == open(device.ca_file, "rb").read() == open(os.path.join(device.ca_dir, "ca.pem"), "rb").read()
    status, content_type, crt = fetch(device.base + "/__admin/ca.crt")
    assert status == 200 and content_type == "application/x-x509-ca-cert"
    assert crt == pem


def test_ca_der_is_the_same_certificate(device, tmp_path):
    _, _, pem = fetch(device.base + "/__admin/ca.pem")
    status, content_type, der = fetch(device.base + "/__admin/ca.der")
    assert status == 200 and content_type == "application/x-x509-ca-cert"
    assert der[0] == 0x30  # an ASN.1 SEQUENCE, not text
    assert ssl.PEM_cert_to_DER_cert(pem.decode()) == der
    assert ssl.DER_cert_to_PEM_cert(der).strip() == pem.decode().strip()
    exported = tmp_path / "exported.der"
    export_ca(device.ca_dir, str(exported), der=True)
    assert exported.read_bytes() == der
    need("openssl", "openssl")
    subject = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-subject", "-ext", "basicConstraints"],
                             input=der, capture_output=True, timeout=30)
    assert subject.returncode == 0, subject.stderr
    assert b"Understudy Local CA" in subject.stdout and b"CA:TRUE" in subject.stdout, subject.stdout


def test_ca_mobileconfig_is_an_ios_profile_holding_the_ca(device):
    """What Safari on an iPhone installs in one step: a configuration profile with one root payload."""
    import plistlib
    status, content_type, profile = fetch(device.base + "/__admin/ca.mobileconfig")
    assert status == 200 and content_type == "application/x-apple-aspen-config"
    parsed = plistlib.loads(profile)
    assert parsed["PayloadType"] == "Configuration" and parsed["PayloadVersion"] == 1
    (payload,) = parsed["PayloadContent"]
    assert payload["PayloadType"] == "com.apple.security.root"
    _, _, der = fetch(device.base + "/__admin/ca.der")
    assert payload["PayloadContent"] == der
    assert payload["PayloadUUID"] != parsed["PayloadUUID"]
    assert fetch(device.base + "/__admin/ca.mobileconfig")[2] == profile, "the same CA is the same profile"
    _, _, page = fetch(device.base + "/__admin/ca")
    assert b'href="/__admin/ca.mobileconfig"' in page and b"Certificate Trust Settings" in page


def test_ca_key_is_private_and_the_ca_survives_a_restart(device):
    key = os.path.join(device.ca_dir, "ca-key.pem")
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    _, _, pem = fetch(device.base + "/__admin/ca.pem")
    with serve(STUBS, "--ca-dir", device.ca_dir) as again:
        _, _, pem_again = fetch(again + "/__admin/ca.pem")
        # And its leaves chain to the same CA: the file exported from the first server still verifies.
        second = Device(again, device.ca_dir, device.ca_file)
        status, _, code, error = curl(second, RALLY_AUTHORIZE, "--user", "tester@example.com:rally-secret")
        assert (code, status) == (0, 200), error
    assert pem_again == pem
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600


def test_the_ca_is_read_or_made_at_the_first_tunnel_not_at_start(tmp_path):
    ca_dir = tmp_path / "ca"
    with serve(STUBS, "--ca-dir", str(ca_dir)) as base:
        # A server only reached directly, as by most test runs, never reads or makes the CA.
        assert fetch(base + "/__admin/health")[0] == 200
        assert fetch(base + "/proxy.pac")[0] == 200
        assert fetch(base + "/maps/api/geocode/xml?address=94086")[0] == 200
        assert not ca_dir.exists()
        # The first tunnel makes it, and its TLS is ended with a leaf that CA issued for the host.
        device = Device(base, str(ca_dir), None)
        connection, answer = raw_connect(device, "maps.googleapis.com:443")
        assert answer.startswith("HTTP/1.1 200"), answer
        reply = geocode_over_tls(connection, "maps.googleapis.com", ca_dir / "ca.pem")
        assert reply.startswith(b"HTTP/1.1 200") and b"Sunnyvale, CA 94086, USA" in reply, reply[:300]
        # The certificate endpoints serve that same CA.
        assert fetch(base + "/__admin/ca.pem")[2] == (ca_dir / "ca.pem").read_bytes()


def test_an_https_port_without_certificate_files_uses_the_ca_from_the_start(tmp_path):
    ca_dir = tmp_path / "ca"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        https_port = probe.getsockname()[1]
    with serve(STUBS, "--ca-dir", str(ca_dir), "--https-port", str(https_port)) as base:
        assert (ca_dir / "ca.pem").exists(), "--https-port issues the CA's certificates, so the CA is read or made at start"
        # Direct https on that port, with a certificate for the name the client uses.
        direct = geocode_over_tls(socket.create_connection(("127.0.0.1", https_port), timeout=TIMEOUT), "localhost", ca_dir / "ca.pem")
        assert direct.startswith(b"HTTP/1.1 200") and b"Sunnyvale, CA 94086, USA" in direct, direct[:300]
        # Tunnels are relayed into that same listener.
        connection, answer = raw_connect(Device(base, str(ca_dir), None), "maps.googleapis.com:443")
        assert answer.startswith("HTTP/1.1 200"), answer
        tunnelled = geocode_over_tls(connection, "maps.googleapis.com", ca_dir / "ca.pem")
        assert tunnelled.startswith(b"HTTP/1.1 200") and b"Sunnyvale, CA 94086, USA" in tunnelled, tunnelled[:300]


def geocode_over_tls(connection, host, ca_file):
    """A geocode for 94086 over TLS on `connection`, trusting only `ca_file`: the whole answer."""
    trusting = ssl.create_default_context(cafile=str(ca_file))
    with trusting.wrap_socket(connection, server_hostname=host) as tls:
        tls.sendall(("GET /maps/api/geocode/json?address=94086 HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host).encode())
        reply = b""
        while chunk := tls.recv(65536):
            reply += chunk
    return reply


def test_a_ca_that_cannot_be_read_refuses_tunnels_and_says_why(tmp_path):
    ca_dir = tmp_path / "ca"
    ca_dir.mkdir()
    (ca_dir / "ca.pem").write_text("not a certificate")
    with serve(STUBS, "--ca-dir", str(ca_dir)) as base:
        device = Device(base, str(ca_dir), None)
        connection, answer = raw_connect(device, "maps.googleapis.com:443")
        connection.close()
        assert answer.startswith("HTTP/1.1 501"), answer
        certificate = requests.get(base + "/__admin/ca.pem", timeout=TIMEOUT)
        assert certificate.status_code == 404 and "no local CA" in certificate.text
        # Plain-HTTP requests through the proxy are still answered.
        proxied = requests.get(GEOCODE, proxies={"http": base}, timeout=TIMEOUT)
        assert proxied.status_code == 200 and "Sunnyvale" in proxied.text


def test_each_ca_dir_has_its_own_ca(device, tmp_path):
    fresh = str(tmp_path / "fresh-ca")
    export_ca(fresh, str(tmp_path / "fresh.pem"))
    assert stat.S_IMODE(os.stat(os.path.join(fresh, "ca-key.pem")).st_mode) == 0o600
    assert (tmp_path / "fresh.pem").read_bytes() != open(device.ca_file, "rb").read()


def test_ca_page_tells_how_to_install_the_ca(device):
    status, content_type, page = fetch(device.base + "/__admin/ca")
    page = page.decode()
    assert status == 200 and content_type.startswith("text/html")
    assert "xcrun simctl keychain booted add-root-cert" in page
    for link in ('href="/__admin/ca.pem"', 'href="/__admin/ca.crt"', 'href="/__admin/ca.der"'):
        assert link in page
    assert "127.0.0.1:%d" % device.port in page
    assert "certutil -d sql:$HOME/.pki/nssdb" in page
    # The one-command ways first; every file a step pushes or installs is one a step downloads.
    assert "understudy trust ios-simulator" in page and "understudy trust android-emulator" in page
    steps = html.unescape(re.sub(r"<[^>]+>", "", page))
    for pushed in re.findall(r"(?:adb push|add-root-cert|certutil .* -i|--cacert) (understudy-ca\.\w+)", steps):
        assert "curl -o %s " % pushed in steps or "--export %s" % pushed in steps, pushed


def test_proxy_pac_sends_mapped_hosts_to_the_proxy(device):
    status, content_type, pac = fetch(device.base + "/proxy.pac")
    pac = pac.decode()
    assert status == 200 and content_type == "application/x-ns-proxy-autoconfig"
    assert "function FindProxyForURL(url, host)" in pac
    hosts = json.load(open(os.path.join(STUBS, "hosts.json")))
    routed = dict(re.findall(r'if \(host == "([^"]+)"\) return "([^"]+)";', pac))
    assert routed == {host: "PROXY 127.0.0.1:%d" % device.port for host in hosts}
    assert re.search(r'return "DIRECT";\s*}\s*$', pac), pac


# 4. headless Chromium ---------------------------------------------------------------------------

@contextlib.contextmanager
def chromium_through(device, trust_ca, proxy_port=None):
    """Headless Chromium with the device server as its proxy (or a scope's proxy port); with trust_ca,
    Understudy's CA is in the NSS database of a temporary HOME ($HOME/.pki/nssdb, where Chromium on
    Linux reads it)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.fail("chromium and chromedriver are needed (make test installs Debian's chromium and chromium-driver)")
    with tempfile.TemporaryDirectory(prefix="understudy-chromium-") as home:
        nssdb = "sql:" + os.path.join(home, ".pki", "nssdb")
        if trust_ca:
            need("certutil", "libnss3-tools")
            os.makedirs(os.path.join(home, ".pki", "nssdb"))
            for command in (["-N", "--empty-password"], ["-A", "-t", "C,,", "-n", "understudy", "-i", device.ca_file]):
                done = subprocess.run(["certutil", "-d", nssdb] + command, capture_output=True, timeout=60)
                assert done.returncode == 0, done.stderr
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--window-size=1024,1400", "--user-data-dir=" + os.path.join(home, "profile"),
                         "--proxy-server=http://127.0.0.1:%d" % (proxy_port or device.port),
                         # http:// must stay http:// for the continuity check (no automatic upgrade).
                         "--disable-features=HttpsUpgrades"]:
            options.add_argument(argument)
        environment = dict(os.environ, HOME=home)
        session = webdriver.Chrome(service=Service(executable_path=driver, env=environment), options=options)
        try:
            session.set_page_load_timeout(30)
            yield session
        finally:
            session.quit()


def cart_count(browser):
    from selenium.webdriver.common.by import By
    return browser.find_element(By.ID, "cartCount").text.strip()


def test_chromium_shops_over_https_and_http_through_the_proxy(device):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from browser_support import replaced

    with chromium_through(device, trust_ca=True) as browser:
        home = "https://" + STOREFRONT + "StoreView?" + STORE_QUERY
        browser.get(home)
        assert "ERR_CERT" not in browser.page_source
        assert browser.title == "Home | Madisons", browser.title
        assert browser.execute_script("return location.protocol") == "https:"
        assert cart_count(browser) == "0"

        browser.get("https://" + STOREFRONT + "mProductDisplayView?" + STORE_QUERY + "&productId=12001")
        assert browser.title.startswith("Silk Wrap Dress"), browser.title
        Select(browser.find_element(By.NAME, "attrValue_Color")).select_by_visible_text("Red")
        Select(browser.find_element(By.NAME, "attrValue_Size")).select_by_visible_text("M")
        old = browser.find_element(By.TAG_NAME, "html")
        browser.find_element(By.ID, "addToCart").click()
        WebDriverWait(browser, 15).until(replaced(old))
        assert browser.current_url.startswith("https://" + STOREFRONT + "mOrderItemDisplay"), browser.current_url
        assert cart_count(browser) == "1"
        https_cookies = {cookie["name"]: cookie["value"] for cookie in browser.get_cookies()}
        assert any(name.startswith("WC_AUTHENTICATION_") for name in https_cookies), https_cookies

        # The same storefront over plain http://: the same cookies, so the same guest and cart.
        plain = "http://" + STOREFRONT + "StoreView?" + STORE_QUERY
        browser.get(plain)
        assert browser.execute_script("return location.protocol") == "http:"
        assert browser.title == "Home | Madisons", browser.title
        assert cart_count(browser) == "1"
        http_cookies = {cookie["name"]: cookie["value"] for cookie in browser.get_cookies()}
        assert http_cookies == https_cookies

    journal = device.journal()
    plain_entries = [e for e in journal if e["request"]["absoluteUrl"] == plain]
    assert plain_entries and plain_entries[0]["request"]["browserProxyRequest"] is True
    cookies = plain_entries[0]["request"]["cookies"]
    for name, value in https_cookies.items():
        if name.startswith("WC_AUTHENTICATION_"):
            assert cookies.get(name) == value, cookies
    add = [e for e in journal if e["request"]["absoluteUrl"] == "https://" + STOREFRONT + "OrderChangeServiceItemAdd"]
    assert add and add[0]["request"]["method"] == "POST"


def test_chromium_without_the_ca_gets_a_certificate_error(device):
    with chromium_through(device, trust_ca=False) as browser:
        browser.get("https://" + STOREFRONT + "StoreView?" + STORE_QUERY)
        assert browser.title != "Home | Madisons"
        assert "ERR_CERT_AUTHORITY_INVALID" in browser.page_source
