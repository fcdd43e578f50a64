"""Parallel devices through device mode's proxy: the user name of the proxy credentials names the
state scope, for plain proxied requests and for everything inside a CONNECT tunnel, so unchanged
apps on several devices keep apart. curl and Python `requests` send the credentials up front; with
--proxy-password the proxy challenges with 407 (what OkHttp's and Java's authenticators wait for)."""
import base64
import json
import shutil
import subprocess
import time
import urllib.request

import pytest
import requests

from test_device_mode import STORE_QUERY, STOREFRONT, TIMEOUT, cart_count, chromium_through, curl, device_server, raw_request

RALLY = "rally1.rallydev.com"


def admin(device, method, path, body=None, headers=None):
    request = urllib.request.Request(device.base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers=dict({"Content-Type": "application/json"}, **(headers or {})))
    with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
        text = answer.read()
        return json.loads(text) if text else None


def urls_in(device, scope):
    return [entry["request"]["absoluteUrl"] for entry in admin(device, "GET", "/__admin/requests?scope=" + scope)["requests"]]


def via(device, user, password="x"):
    host = device.proxy[len("http://"):]
    return "http://%s:%s@%s" % (user, password, host)


@pytest.fixture(scope="module")
def device():
    with device_server() as server:
        # A door whose state moves: each scope has a state of its own.
        for mapping in [
            {"scenarioName": "door", "requiredScenarioState": "Started", "newScenarioState": "open",
             "request": {"method": "POST", "urlPath": "/door"}, "response": {"status": 204}},
            {"scenarioName": "door", "requiredScenarioState": "Started", "request": {"method": "GET", "urlPath": "/door"},
             "response": {"body": "closed"}},
            {"scenarioName": "door", "requiredScenarioState": "open", "request": {"method": "GET", "urlPath": "/door"},
             "response": {"body": "open"}},
        ]:
            admin(server, "POST", "/__admin/mappings", mapping)
        yield server


def test_curl_credentials_name_the_scope_over_http_and_https(device):
    status, _, code, error = curl(device, "http://%s/door?plain" % RALLY, "--proxy", via(device, "ci-1"))
    assert code == 0 and status == 200, (code, status, error)
    status, _, code, error = curl(device, "https://%s/door?tls" % RALLY, "--proxy", via(device, "ci-2"))
    assert code == 0 and status == 200, (code, status, error)
    assert urls_in(device, "ci-1") == ["http://%s/door?plain" % RALLY]
    assert urls_in(device, "ci-2") == ["https://%s/door?tls" % RALLY], "every request inside the tunnel is in the CONNECT's scope"
    assert not [url for url in urls_in(device, "default") if "door?" in url]


def test_two_devices_keep_their_state_apart(device):
    session_a, session_b = requests.Session(), requests.Session()
    session_a.proxies = {"https": via(device, "phone-a"), "http": via(device, "phone-a")}
    session_b.proxies = {"https": via(device, "phone-b"), "http": via(device, "phone-b")}
    door = "https://%s/door" % RALLY
    assert session_a.post(door, verify=device.ca_file, timeout=TIMEOUT).status_code == 204
    assert session_a.get(door, verify=device.ca_file, timeout=TIMEOUT).text == "open"
    assert session_b.get(door, verify=device.ca_file, timeout=TIMEOUT).text == "closed", "phone-b's door is its own"
    assert requests.get(door, proxies={"https": device.proxy}, verify=device.ca_file, timeout=TIMEOUT).text == "closed", "and default's"
    scenarios = admin(device, "GET", "/__admin/scenarios?scope=phone-a")["scenarios"]
    assert [s["state"] for s in scenarios if s["name"] == "door"] == ["open"]
    assert len(urls_in(device, "phone-a")) == 2 and len(urls_in(device, "phone-b")) == 1


def raw_proxy(device, request):
    connection, answer = raw_request(device, request)
    connection.close()
    return answer


def credentials(text):
    return "Basic " + base64.b64encode(text.encode()).decode()


def test_bad_credentials_get_a_clear_400(device):
    for field, why in [("Bearer abc", "must be Basic"), ("Basic %%%", "not base64"), (credentials("no-colon"), "no ':'"),
                       (credentials("a" * 65 + ":x"), "65 bytes"), (credentials("bad name:x"), "a character other than")]:
        answer = raw_proxy(device, "GET http://%s/door HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: %s\r\n\r\n" % (RALLY, RALLY, field))
        assert answer.startswith("HTTP/1.1 400"), (field, answer)
        assert why in answer, (field, answer)
        connect = raw_proxy(device, "CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\nProxy-Authorization: %s\r\n\r\n" % (RALLY, RALLY, field))
        assert connect.startswith("HTTP/1.1 400"), (field, connect)
    # A header that names another scope than the credentials: refused, as other disagreements are.
    answer = raw_proxy(device, "GET http://%s/door HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: %s\r\nX-Understudy-Scope: ci-9\r\n\r\n"
                       % (RALLY, RALLY, credentials("ci-8:x")))
    assert answer.startswith("HTTP/1.1 400") and 'the proxy credentials name the scope "ci-8"' in answer, answer


def test_with_a_proxy_password_the_proxy_challenges():
    with device_server("--proxy-password", "s3cret") as device:
        answer = raw_proxy(device, "GET http://%s/door HTTP/1.1\r\nHost: %s\r\n\r\n" % (RALLY, RALLY))
        assert answer.startswith("HTTP/1.1 407") and 'Proxy-Authenticate: Basic realm="Understudy"' in answer, answer
        connect = raw_proxy(device, "CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n" % (RALLY, RALLY))
        assert connect.startswith("HTTP/1.1 407") and "Proxy-Authenticate: Basic" in connect, connect
        status, _, code, _ = curl(device, "https://%s/door" % RALLY, "--proxy", via(device, "ci-1", "wrong"))
        assert code != 0 or status == 407, "a wrong password gets no tunnel"
        admin(device, "POST", "/__admin/mappings", {"request": {"urlPath": "/ping"}, "response": {"body": "pong"}})
        status, body, code, error = curl(device, "https://%s/ping" % RALLY, "--proxy", via(device, "ci-1", "s3cret"))
        assert code == 0 and status == 200 and body == b"pong", (code, status, error)
        # curl answers a challenge with --proxy-anyauth when it did not send credentials up front.
        status, body, code, error = curl(device, "http://%s/ping" % RALLY, "--proxy", device.proxy, "--proxy-user", "ci-2:s3cret", "--proxy-anyauth")
        assert code == 0 and status == 200 and body == b"pong", (code, status, error)
        assert urls_in(device, "ci-2") == ["http://%s/ping" % RALLY]


def test_java_answers_the_challenge_through_a_tunnel(tmp_path):
    """Java's HttpClient sends no credentials until the proxy's 407, then the scope's."""
    javac, keytool = shutil.which("javac"), shutil.which("keytool")
    assert javac and keytool, "this test needs a JDK (tools/install-deps.sh python installs one)"
    source = __file__.replace("python/test_device_scopes.py", "java/ProxyChallengeCheck.java")
    subprocess.run([javac, "-d", str(tmp_path), source], check=True, capture_output=True, timeout=300)
    with device_server("--proxy-password", "s3cret") as device:
        admin(device, "POST", "/__admin/mappings", {"request": {"urlPath": "/java"}, "response": {"body": "from java"}})
        store = str(tmp_path / "trust.jks")
        subprocess.run([keytool, "-importcert", "-noprompt", "-alias", "understudy", "-file", device.ca_file, "-keystore", store,
                        "-storepass", "changeit"], check=True, capture_output=True, timeout=120)
        run = subprocess.run(["java", "-Djdk.http.auth.tunneling.disabledSchemes=", "-Djavax.net.ssl.trustStore=" + store,
                              "-Djavax.net.ssl.trustStorePassword=changeit", "-cp", str(tmp_path), "ProxyChallengeCheck",
                              "127.0.0.1", str(device.port), "https://%s/java" % RALLY, "android-7", "s3cret"],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr[-3000:]
        assert run.stdout.splitlines() == ["200", "from java"], run.stdout
        assert urls_in(device, "android-7") == ["https://%s/java" % RALLY]


def test_javas_websocket_answers_the_challenge_and_reaches_its_scopes_message_stub(tmp_path):
    """java.net.http.WebSocket through the proxy's 407 to wss:// on a mapped host: the scope named
    by the credentials answers, with its own message stub (another scope's is not heard)."""
    javac, keytool = shutil.which("javac"), shutil.which("keytool")
    assert javac and keytool, "this test needs a JDK (tools/install-deps.sh python installs one)"
    source = __file__.replace("python/test_device_scopes.py", "java/WebSocketProxyCheck.java")
    subprocess.run([javac, "-d", str(tmp_path), source], check=True, capture_output=True, timeout=300)
    def echo(reply):
        return {"trigger": {"type": "message", "channel": {"type": "websocket", "initiatingRequestPattern": {"urlPath": "/live"}}},
                "actions": [{"type": "send", "message": {"body": {"data": reply + " {{message.body}}"}}}]}
    with device_server("--proxy-password", "s3cret") as device:
        for scope, reply in [("android-8", "heard"), ("android-9", "other scope heard")]:
            answer = requests.post(device.base + "/__admin/message-mappings", json=echo(reply),
                                   headers={"X-Understudy-Scope": scope}, timeout=TIMEOUT)
            assert answer.status_code in (200, 201), answer.text
        store = str(tmp_path / "trust.jks")
        subprocess.run([keytool, "-importcert", "-noprompt", "-alias", "understudy", "-file", device.ca_file, "-keystore", store,
                        "-storepass", "changeit"], check=True, capture_output=True, timeout=120)
        run = subprocess.run(["java", "-Djdk.http.auth.tunneling.disabledSchemes=", "-Djavax.net.ssl.trustStore=" + store,
                              "-Djavax.net.ssl.trustStorePassword=changeit", "-cp", str(tmp_path), "WebSocketProxyCheck",
                              "127.0.0.1", str(device.port), "wss://%s/live" % RALLY, "android-8", "s3cret", "hello"],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr[-3000:]
        assert run.stdout.splitlines() == ["heard hello"], run.stdout


def test_a_scopes_network_holds_through_the_proxy_and_its_tunnels(device):
    requests.put(device.base + "/__admin/scopes/ci-slow/network", json={"latencyMs": 300}, timeout=TIMEOUT).raise_for_status()
    requests.put(device.base + "/__admin/scopes/ci-off/network", json={"profile": "offline"}, timeout=TIMEOUT).raise_for_status()
    try:
        session = requests.Session()
        session.proxies = {"https": via(device, "ci-slow")}
        started = time.monotonic()
        assert session.get("https://%s/door" % RALLY, verify=device.ca_file, timeout=TIMEOUT).status_code == 200
        assert time.monotonic() - started >= 0.3, "inside the tunnel too"
        status, _, code, _ = curl(device, "https://%s/door" % RALLY, "--proxy", via(device, "ci-off"))
        assert code != 0, "an offline scope's device gets no tunnel (curl %d, status %d)" % (code, status)
        status, _, code, _ = curl(device, "http://%s/door" % RALLY, "--proxy", via(device, "ci-off"))
        assert code != 0 and status == 0, "nor an answer through the proxy (curl %d, status %d)" % (code, status)
    finally:
        for scope in ("ci-slow", "ci-off"):
            requests.delete(device.base + "/__admin/scopes/%s/network" % scope, timeout=TIMEOUT)


def test_a_scope_gets_a_proxy_port_of_its_own(device):
    """For clients that take a proxy's host and port but no credentials: a phone's Wi-Fi proxy."""
    opened = requests.post(device.base + "/__admin/scopes/wifi-a/proxy", timeout=TIMEOUT).json()
    port_a = opened["port"]
    assert opened["proxy"] == "127.0.0.1:%d" % port_a and opened["pac"].endswith("/proxy.pac?scope=wifi-a")
    assert requests.post(device.base + "/__admin/scopes/wifi-a/proxy", timeout=TIMEOUT).json()["port"] == port_a, "one port per scope"
    port_b = requests.post(device.base + "/__admin/scopes/wifi-b/proxy", timeout=TIMEOUT).json()["port"]
    assert port_b != port_a and requests.get(device.base + "/__admin/scopes/wifi-b/proxy", timeout=TIMEOUT).json()["port"] == port_b
    door = "https://%s/door" % RALLY
    a = {"https": "http://127.0.0.1:%d" % port_a, "http": "http://127.0.0.1:%d" % port_a}
    b = {"https": "http://127.0.0.1:%d" % port_b}
    assert requests.post(door, proxies=a, verify=device.ca_file, timeout=TIMEOUT).status_code == 204
    assert requests.get(door, proxies=a, verify=device.ca_file, timeout=TIMEOUT).text == "open"
    assert requests.get("http://%s/door" % RALLY, proxies=a, timeout=TIMEOUT).text == "open", "plain proxying too"
    assert requests.get(door, proxies=b, verify=device.ca_file, timeout=TIMEOUT).text == "closed", "wifi-b's door is its own"
    assert len(urls_in(device, "wifi-a")) == 3 and len(urls_in(device, "wifi-b")) == 1
    pac = requests.get(device.base + "/proxy.pac?scope=wifi-a", timeout=TIMEOUT).text
    assert 'return "PROXY 127.0.0.1:%d";' % port_a in pac
    assert requests.get(device.base + "/proxy.pac?scope=nobody", timeout=TIMEOUT).status_code == 404
    # The port goes with its scope.
    assert requests.delete(device.base + "/__admin/scopes/wifi-a", timeout=TIMEOUT).status_code == 200
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            requests.get("http://%s/door" % RALLY, proxies=a, timeout=2)
        except requests.ConnectionError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the port of a deleted scope still answers")


def test_scope_ports_are_capped_by_max_scopes():
    with device_server("--max-scopes", "2") as device:
        for name in ("one", "two"):
            assert requests.post(device.base + "/__admin/scopes/%s/proxy" % name, timeout=TIMEOUT).status_code == 200
        third = requests.post(device.base + "/__admin/scopes/three/proxy", timeout=TIMEOUT)
        assert third.status_code == 409 and "--max-scopes" in third.json()["message"]
        assert requests.post(device.base + "/__admin/scopes/bad name/proxy", timeout=TIMEOUT).status_code in (400, 404)


def test_two_devices_keep_their_lotus_posts_apart(device):
    """A status update posted by one device through the proxy, over TLS, is not the other's."""
    import os
    import xml.etree.ElementTree as ET
    from understudy_server import ROOT
    person = json.load(open(os.path.join(ROOT, "stubs", "lotus", "people.json")))["people"][0]
    status = "https://www.ibm.com/developerworks/mydeveloperworks/profiles/atom/mv/theboard/entry/status.do"
    entry = '<entry xmlns="http://www.w3.org/2005/Atom"><content type="text">posted by phone-a</content></entry>'
    phone_a, phone_b = requests.Session(), requests.Session()
    phone_a.proxies = {"https": via(device, "phone-a")}
    phone_b.proxies = {"https": via(device, "phone-b")}
    posted = phone_a.put(status, params={"email": person["email"]}, data=entry.encode(), auth=(person["email"], person["password"]),
                         headers={"Content-Type": "application/atom+xml"}, verify=device.ca_file, timeout=TIMEOUT)
    assert posted.status_code == 200, posted.text[:300]

    def current(session):
        answer = session.get(status, params={"email": person["email"]}, verify=device.ca_file, timeout=TIMEOUT)
        assert answer.status_code == 200, answer.text[:300]
        return ET.fromstring(answer.content).find("{http://www.w3.org/2005/Atom}content").text
    assert current(phone_a) == "posted by phone-a"
    assert current(phone_b) == person["status"]["text"], "phone-b's Lotus has the fixture's status"


def test_two_devices_keep_their_sql_rows_apart(tmp_path):
    """The Informix demo app's host mapped in hosts.json: rows one device inserts are not the other's."""
    import os
    import xml.etree.ElementTree as ET
    from understudy_server import ROOT, serve
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    os.symlink(os.path.join(ROOT, "stubs", "informix"), stubs / "informix")
    (stubs / "hosts.json").write_text(json.dumps({"informix.example.com": "informix"}))
    with serve(str(stubs), "--ca-dir", str(tmp_path / "ca")) as base:
        proxy = base[len("http://"):]

        def sql(user, statement, table, service="generic2"):
            # generic.php answers the whole table after a write; generic2.php what a query selects.
            answer = requests.post("http://informix.example.com/informix/%s.php" % service, data={"sql_stmt": statement, "tableName": table},
                                   proxies={"http": "http://%s:x@%s" % (user, proxy)}, timeout=TIMEOUT)
            assert answer.status_code == 200, answer.text[:300]
            return [{column.tag: (column.text or "").strip() for column in row} for row in ET.fromstring(answer.content)]
        sql("phone-a", "INSERT INTO customer (fname, lname, company) VALUES ('Ada', 'Device', 'phone-a')", "customer", "generic")
        tagged = "SELECT fname FROM customer WHERE company = 'phone-a'"
        assert [row.get("FNAME") for row in sql("phone-a", tagged, "customer")] == ["Ada"]
        assert sql("phone-b", tagged, "customer") == [], "phone-b's database is the fixture's"


def add_to_cart(browser, product, size):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from browser_support import replaced
    browser.get("https://" + STOREFRONT + "mProductDisplayView?" + STORE_QUERY + "&productId=" + product)
    Select(browser.find_element(By.NAME, "attrValue_Color")).select_by_visible_text("Red")
    Select(browser.find_element(By.NAME, "attrValue_Size")).select_by_visible_text(size)
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "addToCart").click()
    WebDriverWait(browser, 15).until(replaced(old))


def test_two_chromiums_on_two_scope_ports_fill_two_carts_on_the_same_store_host(device):
    """Two unchanged browsers, each with a scope's port as its proxy, shop at the same https host: each
    scope keeps its own guests, carts and journal."""
    ports = {name: admin(device, "POST", "/__admin/scopes/%s/proxy" % name)["port"] for name in ("cart-a", "cart-b")}
    with chromium_through(device, True, ports["cart-a"]) as a, chromium_through(device, True, ports["cart-b"]) as b:
        add_to_cart(a, "12001", "M")
        add_to_cart(b, "12001", "S")
        add_to_cart(a, "12001", "XL")
        assert (cart_count(a), cart_count(b)) == ("2", "1")
        a.get("https://" + STOREFRONT + "StoreView?" + STORE_QUERY)
        assert cart_count(a) == "2", "a's cart survives b's shopping"
        cookies_a = {cookie["name"]: cookie["value"] for cookie in a.get_cookies()}

    # a's guest does not exist in b's scope: its cookies there get a fresh, empty cart.
    through_b = {"https": "http://127.0.0.1:%d" % ports["cart-b"]}
    page = requests.get("https://" + STOREFRONT + "StoreView?" + STORE_QUERY, cookies=cookies_a, proxies=through_b,
                        verify=device.ca_file, timeout=TIMEOUT).text
    assert '<span id="cartCount">0</span>' in page, page[:2000]
    adds = {scope: [url for url in urls_in(device, scope) if url.endswith("OrderChangeServiceItemAdd")] for scope in ports}
    assert {scope: len(urls) for scope, urls in adds.items()} == {"cart-a": 2, "cart-b": 1}
    assert not [url for url in urls_in(device, "default") if STOREFRONT in url], "nothing of theirs in default"


PROXY_PASSWORD = "pw-Kestrel-4471"


def test_the_proxy_password_is_not_in_the_journal():
    """The journal is served to every admin caller and shown in the dashboard: the proxy password
    stays out of it (the scheme and the user name, which names the scope, stay for debugging),
    whether the password was right or wrong. `Authorization` is the app's own and is kept."""
    with device_server("--proxy-password", PROXY_PASSWORD) as server:
        admin(server, "POST", "/__admin/mappings", {"request": {"urlPath": "/door"}, "response": {"body": "door"}})
        secrets = [PROXY_PASSWORD, "guess-Osprey-9902"]
        for password in secrets:
            field = credentials("ci-7:" + password)
            answer = raw_proxy(server, "GET http://%s/door?%s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: %s\r\n"
                                       "Authorization: Bearer app-token-1\r\nConnection: close\r\n\r\n" % (RALLY, password[:2], RALLY, field))
            assert answer.startswith("HTTP/1.1 200" if password == PROXY_PASSWORD else "HTTP/1.1 407"), answer
        status, _, code, error = curl(server, "http://%s/door?curl" % RALLY, "--proxy", via(server, "ci-7", PROXY_PASSWORD))
        assert code == 0 and status == 200, (code, status, error)

        forbidden = secrets + [credentials("ci-7:" + p)[len("Basic "):] for p in secrets]
        journal = {}
        for path in ["/__admin/requests", "/__admin/requests?scope=ci-7", "/__admin/requests/live?after=0&timeout=0",
                     "/__admin/requests/unmatched"]:
            with urllib.request.urlopen(server.base + path, timeout=TIMEOUT) as answer:
                journal[path] = answer.read().decode()
        for path in ["/__admin/requests/find", "/__admin/requests/find?scope=ci-7"]:
            request = urllib.request.Request(server.base + path, method="POST", data=b'{"urlPath": "/door"}',
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                journal[path] = answer.read().decode()
        for path, text in journal.items():
            for secret in forbidden:
                assert secret not in text, "%s shows %s" % (path, secret)

        entries = [entry for path in ["/__admin/requests", "/__admin/requests?scope=ci-7"] for entry in json.loads(journal[path])["requests"]]
        doors = [entry["request"] for entry in entries if "/door?" in entry["request"]["url"]]
        assert len(doors) >= 2, doors
        for request in doors:
            headers = {name.lower(): value for name, value in request["headers"].items()}
            assert headers["proxy-authorization"] == "Basic ci-7:[redacted]", headers
        assert [r for r in doors if r["headers"].get("Authorization") == "Bearer app-token-1"], "Authorization is kept as sent"
