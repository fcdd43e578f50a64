"""A web page in the developer's browser must not drive the admin API: headless Chromium opens a
page of another origin that POSTs a mapping as text/plain (a "simple" request, sent without asking
first), and the server must not take it; the same page on the server's own origin can."""
import json
import os
import tempfile
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from understudy_server import serve

PAGE = """<!doctype html><title>loading</title><script>
const target = new URLSearchParams(location.search).get('target');
const type = new URLSearchParams(location.search).get('type');
const mode = new URLSearchParams(location.search).get('mode');
const mapping = {request: {method: 'GET', url: '/planted'}, response: {status: 200, body: 'planted'}};
const post = (path) => fetch(target + path, {method: 'POST', mode: mode, headers: {'Content-Type': type},
                                              body: JSON.stringify(mapping)});
post('/__admin/mappings').then(() => post('/probe'))
  .then(() => { document.title = 'sent'; }, () => { document.title = 'failed'; });
</script>"""


@pytest.fixture(scope="module")
def base():
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "__files"))
        with open(os.path.join(stubs, "__files", "page.html"), "w") as page:
            page.write(PAGE)
        with serve(stubs) as url:
            yield url


def planted(base):
    try:
        return urllib.request.urlopen(base + "/planted").status == 200
    except urllib.error.HTTPError as error:
        assert error.code == 404
        return False


def open_page(browser, origin, target, content_type, mode="no-cors"):
    browser.get("%s/page.html?target=%s&type=%s&mode=%s" % (origin, target, content_type, mode))
    WebDriverWait(browser, 15).until(lambda b: b.title in ("sent", "failed"))


def test_a_page_of_another_origin_cannot_create_a_mapping(base, browser):
    port = base.rsplit(":", 1)[1]
    other_origin = "http://localhost:%s" % port  # another origin: the host differs
    open_page(browser, other_origin, base, "text/plain")
    open_page(browser, other_origin, base, "application/x-www-form-urlencoded")
    assert not planted(base)
    mappings = json.load(urllib.request.urlopen(base + "/__admin/mappings"))
    assert mappings["meta"]["total"] == 0
    # The browser did send its requests: the same POST to an ordinary path arrived, from that origin.
    journal = json.load(urllib.request.urlopen(base + "/__admin/requests"))["requests"]
    probes = [r["request"] for r in journal if r["request"]["url"] == "/probe"]
    assert len(probes) == 2
    assert all(p["headers"].get("Origin") == other_origin for p in probes)


def test_the_servers_own_origin_can(base, browser):
    open_page(browser, base, base, "application/json", mode="same-origin")
    assert planted(base)
    urllib.request.urlopen(urllib.request.Request(base + "/__admin/mappings", method="DELETE"))
