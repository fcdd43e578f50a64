"""The dashboard at /__admin/ui in a real browser (headless Chromium): it loads without console
errors, shows a request within 2 s of its arrival, names the stub that answered, explains the
near misses of an unmatched request, saves a journaled request as a stub that then answers it,
and shows a request carrying markup as text. Screenshots of each view go to a temporary folder
(the path is printed); the best of them are in docs/images/."""
import http.client
import json
import os
import tempfile
import urllib.error
import urllib.request

import pytest
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from understudy_server import serve

SCREENSHOTS = os.path.join(tempfile.gettempdir(), "understudy-dashboard-screenshots")
LAPTOP = (1280, 860)
PHONE = (390, 844)

GREETING = {
    "name": "greeting",
    "request": {"method": "GET", "urlPath": "/hello"},
    "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                 "jsonBody": {"message": "hello", "items": [1, 2, 3]}},
}
ORDER = {
    "name": "order created",
    "request": {"method": "POST", "urlPath": "/orders", "bodyPatterns": [{"matchesJsonPath": "$.sku"}]},
    "response": {"status": 201, "headers": {"Content-Type": "application/xml"},
                 "body": "<?xml version=\"1.0\"?><order><id>42</id><state>placed</state></order>"},
}


@pytest.fixture(scope="module")
def base():
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "mappings"))
        for name, mapping in [("greeting", GREETING), ("order", ORDER)]:
            with open(os.path.join(stubs, "mappings", name + ".json"), "w") as file:
                json.dump(mapping, file)
        with serve(stubs) as url:
            yield url


def send(base, method, target, body=None, headers=None):
    """Sends a request as the app would (any bytes in the target), returns (status, body)."""
    host, port = base.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request(method, target, body=body, headers=headers or {})
    response = connection.getresponse()
    answer = (response.status, response.read())
    connection.close()
    return answer


def shot(browser, name, size=LAPTOP):
    os.makedirs(SCREENSHOTS, exist_ok=True)
    browser.set_window_size(*size)
    browser.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))
    print("screenshot:", os.path.join(SCREENSHOTS, name + ".png"))


def open_dashboard(browser, base, size=LAPTOP):
    browser.set_window_size(*size)
    browser.get(base + "/__admin/ui/")
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "connection").text == "live")


# The list is drawn again as requests arrive: a row found may be replaced before it is used.
STALE = [StaleElementReferenceException]


def listed(browser):
    return browser.execute_script("return Array.from(document.querySelectorAll('#request-list li .url'), (e) => e.textContent)")


def row_for(browser, target, timeout=2):
    """Waits at most `timeout` seconds for the list to show `target`."""
    WebDriverWait(browser, timeout, poll_frequency=0.05).until(lambda b: target in listed(b))


def click_row(browser, target):
    """Clicks the newest row for `target` (found and clicked at once, so never a replaced one)."""
    browser.execute_script("""Array.from(document.querySelectorAll('#request-list li'))
        .find((row) => row.querySelector('.url').textContent === arguments[0]).click()""", target)


def open_row(browser, target):
    row_for(browser, target)
    click_row(browser, target)
    WebDriverWait(browser, 5).until(lambda b: b.find_element(By.ID, "detail").is_displayed()
                                    and target in b.find_element(By.ID, "detail-title").text)


def severe_console_messages(browser):
    return [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def test_the_dashboard_loads_without_console_errors(base, browser):
    browser.get_log("browser")  # what earlier pages left
    open_dashboard(browser, base)
    assert browser.title == "Understudy"
    assert severe_console_messages(browser) == []
    shot(browser, "requests-empty")


def test_a_request_appears_within_two_seconds_and_names_its_stub(base, browser):
    open_dashboard(browser, base)
    status, _ = send(base, "GET", "/hello?lang=en", headers={"Accept": "application/json"})
    assert status == 200
    row_for(browser, "/hello?lang=en", timeout=2)
    row = browser.find_element(By.CSS_SELECTOR, "#request-list li")  # the newest first
    assert row.find_element(By.CLASS_NAME, "url").text == "/hello?lang=en"
    assert row.find_element(By.CLASS_NAME, "status").text == "200"
    assert "stubs" in row.find_element(By.CLASS_NAME, "meta").text
    open_row(browser, "/hello?lang=en")
    assert browser.find_element(By.CSS_SELECTOR, "#answered-by .stub-name").text == "greeting"
    # The JSON answer is shown pretty-printed.
    assert '"message": "hello"' in browser.find_element(By.ID, "response-body").text
    assert severe_console_messages(browser) == []
    shot(browser, "request-detail")
    shot(browser, "request-detail-phone", PHONE)


def test_an_xml_body_is_pretty_printed(base, browser):
    open_dashboard(browser, base)
    status, _ = send(base, "POST", "/orders", body=json.dumps({"sku": "A-1", "quantity": 2}),
                     headers={"Content-Type": "application/json"})
    assert status == 201
    open_row(browser, "/orders")
    assert browser.find_element(By.CSS_SELECTOR, "#answered-by .stub-name").text == "order created"
    assert "  <id>42</id>" in browser.find_element(By.ID, "response-body").text
    assert '"quantity": 2' in browser.find_element(By.ID, "request-body").text


def test_an_unmatched_request_shows_its_near_misses(base, browser):
    open_dashboard(browser, base)
    status, _ = send(base, "GET", "/helo")
    assert status == 404
    open_row(browser, "/helo")
    assert "Nothing answered" in browser.find_element(By.ID, "answered-by").text
    misses = browser.find_elements(By.CSS_SELECTOR, "#near-misses .miss")
    assert misses, "no near misses shown"
    assert "greeting" in misses[0].find_element(By.CLASS_NAME, "miss-summary").text
    assert "/helo" in misses[0].text and "/hello" in misses[0].text  # why it missed: the path
    shot(browser, "near-misses")


def test_the_filters_narrow_the_list(base, browser):
    open_dashboard(browser, base)
    send(base, "GET", "/hello?filtered=1")
    send(base, "GET", "/missing-for-filter")
    row_for(browser, "/missing-for-filter")
    row_for(browser, "/hello?filtered=1")
    Select(browser.find_element(By.ID, "filter-status")).select_by_value("unmatched")
    assert "/missing-for-filter" in listed(browser) and "/hello?filtered=1" not in listed(browser)
    Select(browser.find_element(By.ID, "filter-status")).select_by_value("")
    browser.find_element(By.ID, "filter-text").send_keys("filtered=1")
    assert listed(browser) == ["/hello?filtered=1"]
    browser.find_element(By.ID, "filter-text").clear()
    Select(browser.find_element(By.ID, "filter-backend")).select_by_value("stubs")
    assert "/hello?filtered=1" in listed(browser) and "/missing-for-filter" not in listed(browser)


def test_pause_holds_new_requests_until_resumed(base, browser):
    open_dashboard(browser, base)
    browser.find_element(By.ID, "pause").click()
    send(base, "GET", "/while-paused")
    WebDriverWait(browser, 3).until(lambda b: "1 new" in b.find_element(By.ID, "pause").text)
    assert "/while-paused" not in listed(browser)
    browser.find_element(By.ID, "pause").click()
    row_for(browser, "/while-paused")


def test_save_as_stub_makes_a_mapping_that_then_answers(base, browser):
    open_dashboard(browser, base)
    assert send(base, "GET", "/not-yet")[0] == 404
    open_row(browser, "/not-yet")
    browser.find_element(By.ID, "save-stub").click()
    editor = browser.find_element(By.ID, "stub-editor")
    draft = json.loads(editor.get_attribute("value"))
    assert draft["request"] == {"method": "GET", "url": "/not-yet"}
    draft["response"] = {"status": 200, "body": "saved from the dashboard"}
    browser.execute_script("arguments[0].value = arguments[1]", editor, json.dumps(draft))
    shot(browser, "save-as-stub")
    browser.find_element(By.ID, "stub-create").click()
    WebDriverWait(browser, 5).until(lambda b: "now answers 200" in b.find_element(By.ID, "stub-result").text)
    assert "saved from the dashboard" in browser.find_element(By.ID, "stub-result").text
    assert send(base, "GET", "/not-yet") == (200, b"saved from the dashboard")
    # The request sent again by the page is in the list, answered by the new stub.
    WebDriverWait(browser, 3).until(lambda b: b.execute_script("""return Array.from(document.querySelectorAll('#request-list li'))
        .some((row) => row.querySelector('.url').textContent === '/not-yet' && row.querySelector('.status').textContent === '200')"""))
    urllib.request.urlopen(urllib.request.Request(base + "/__admin/mappings/" + json.loads(
        urllib.request.urlopen(base + "/__admin/mappings").read())["mappings"][0]["id"], method="DELETE"))


def test_copy_as_curl_shows_a_command_that_sends_the_same_request(base, browser):
    open_dashboard(browser, base)
    send(base, "POST", "/orders?src=curl", body='{"sku": "it\'s"}', headers={"Content-Type": "application/json"})
    open_row(browser, "/orders?src=curl")
    browser.find_element(By.ID, "copy-curl").click()
    command = browser.find_element(By.ID, "curl-text").text
    assert command.startswith("curl -X POST '" + base + "/orders?src=curl'")
    assert "-H 'Content-Type: application/json'" in command
    assert "--data-binary '{\"sku\": \"it'\\''s\"}'" in command


def test_markup_in_a_request_is_shown_as_text(base, browser):
    open_dashboard(browser, base)
    target = "/x<script>alert(1)</script>"
    send(base, "POST", target, body="<script>alert(2)</script><img src=x onerror=alert(3)>",
         headers={"X-Evil": "<img src=x onerror=alert(4)>", "Content-Type": "text/html"})
    open_row(browser, target)
    assert browser.find_element(By.ID, "detail-title").text == "POST " + target
    assert "<img src=x onerror=alert(4)>" in browser.find_element(By.ID, "request-headers").text
    assert "<script>alert(2)</script>" in browser.find_element(By.ID, "request-body").text
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text
    # Nothing the request carried became an element: one script (the dashboard's), no images.
    assert browser.execute_script("return document.scripts.length") == 1
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0
    assert severe_console_messages(browser) == []


def test_the_mappings_view_searches_edits_and_shows_errors(base, browser):
    open_dashboard(browser, base)
    browser.find_element(By.CSS_SELECTOR, "#tabs [data-view=mappings]").click()
    WebDriverWait(browser, 5).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#mapping-list li")) >= 2)
    browser.find_element(By.ID, "mapping-search").send_keys("order")
    rows = browser.find_elements(By.CSS_SELECTOR, "#mapping-list li")
    assert [row.find_element(By.CLASS_NAME, "url").text for row in rows] == ["/orders"]
    rows[0].click()
    editor = browser.find_element(By.ID, "mapping-editor")
    assert json.loads(editor.get_attribute("value"))["name"] == "order created"
    shot(browser, "mappings")
    browser.execute_script("arguments[0].value = '{not json'", editor)
    browser.find_element(By.ID, "mapping-save").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_element(By.ID, "mapping-result").text.startswith("Not saved"))


def test_the_backends_view_shows_what_each_loaded(base, browser):
    open_dashboard(browser, base)
    browser.find_element(By.CSS_SELECTOR, "#tabs [data-view=backends]").click()
    card = WebDriverWait(browser, 5).until(lambda b: b.find_element(By.CSS_SELECTOR, ".backend-card[data-backend=stubs]"))
    assert "mappings" in card.text and "ready" in card.text
    assert "Recording: NeverStarted" in browser.find_element(By.ID, "recording-status").text
    shot(browser, "backends")
    browser.find_element(By.CSS_SELECTOR, "#tabs [data-view=scenarios]").click()
    WebDriverWait(browser, 5).until(lambda b: "No mapping names a scenario" in b.find_element(By.ID, "scenario-table").text)


def test_the_channels_view_shows_open_websockets_and_their_messages_live(base, browser):
    from websockets.sync.client import connect
    urllib.request.urlopen(urllib.request.Request(
        base + "/__admin/message-mappings", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"name": "echo", "trigger": {"message": {"body": {"equalTo": "<b>ping</b>"}}},
                         "actions": [{"type": "send", "message": {"body": "pong"}}]}).encode()))
    open_dashboard(browser, base)
    severe_console_messages(browser)  # what earlier tests left (the mappings view's deliberate 422)
    browser.find_element(By.CSS_SELECTOR, "#tabs [data-view=channels]").click()
    WebDriverWait(browser, 5).until(lambda b: "No channel is open" in b.find_element(By.ID, "channel-table").text)
    with connect(base.replace("http://", "ws://") + "/live?room=7", open_timeout=30) as channel:
        channel.send("<b>ping</b>")
        assert channel.recv(timeout=5) == "pong"
        WebDriverWait(browser, 5, ignored_exceptions=STALE).until(
            lambda b: "GET /live?room=7" in b.find_element(By.ID, "channel-table").text)
        messages = WebDriverWait(browser, 5, ignored_exceptions=STALE).until(
            lambda b: (lambda text: text if "pong" in text else None)(b.find_element(By.ID, "message-table").text))
        assert "<b>ping</b>" in messages and "echo" in messages, "markup shown as text, the stub named"
        shot(browser, "channels")
    WebDriverWait(browser, 5, ignored_exceptions=STALE).until(lambda b: "No channel is open" in b.find_element(By.ID, "channel-table").text)
    assert severe_console_messages(browser) == []


# What fits where, measured in the page: nothing wider than its box, the search hint whole, the
# right pane beside the list and never blank, the state's reset in view.
LAYOUT = """
const overflowing = Array.from(document.querySelectorAll('.pane, .card, .bar, main'))
  .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
  .map((e) => (e.id || e.className) + ' ' + e.scrollWidth + '>' + e.clientWidth);
const search = document.querySelector('.view:not([hidden]) .filters input[type=search]');
let hintCut = false;
if (search) {
  const style = getComputedStyle(search);
  const context = document.createElement('canvas').getContext('2d');
  context.font = style.font;
  const room = search.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  hintCut = context.measureText(search.placeholder).width > room;
}
const panes = Array.from(document.querySelectorAll('.view:not([hidden]) > .pane')).filter((e) => e.offsetParent !== null)
  .map((e) => { const r = e.getBoundingClientRect(); return {cls: e.className, left: r.left, right: r.right, width: r.width}; });
return {overflowing, hintCut, panes, page: document.documentElement.scrollWidth, window: window.innerWidth};
"""


@pytest.fixture(scope="module")
def full_base():
    """A server with the shipped stubs: every emulator's card, the longest mount lists."""
    import shutil
    from understudy_server import ROOT
    with tempfile.TemporaryDirectory() as work:
        stubs = os.path.join(work, "stubs")
        shutil.copytree(os.path.join(ROOT, "stubs"), stubs)
        with serve(stubs, "--no-watch") as url:
            yield url


@pytest.mark.parametrize("width", [1024, 1400, 1920])
def test_two_panes_use_the_width_and_nothing_overflows(full_base, browser, width):
    size = (width, 900)
    for target in ["/maps/api/geocode/json?address=94086", "/nothing/here?x=1", "/developerworks/mydeveloperworks/news/atom/stories/public"]:
        send(full_base, "GET", target)
    open_dashboard(browser, full_base, size)
    row_for(browser, "/nothing/here?x=1")
    measured = browser.execute_script(LAYOUT)
    assert measured["page"] <= measured["window"] and not measured["overflowing"], measured
    assert not measured["hintCut"], "the filter's hint is cut"
    # Before a click: list and a pane that says what a click shows, side by side, filling the width.
    panes = measured["panes"]
    assert len(panes) == 2 and "placeholder" in panes[1]["cls"], panes
    assert panes[0]["right"] < panes[1]["left"] and panes[0]["width"] + panes[1]["width"] > 0.9 * (width - 40), panes
    shot(browser, "requests-%d" % width, size)
    open_row(browser, "/nothing/here?x=1")
    measured = browser.execute_script(LAYOUT)
    assert not measured["overflowing"], measured
    shot(browser, "request-detail-%d" % width, size)

    browser.find_element(By.CSS_SELECTOR, "#tabs [data-view=backends]").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_element(By.CSS_SELECTOR, ".backend-card[data-backend=lotus]"))
    measured = browser.execute_script(LAYOUT)
    assert measured["page"] <= measured["window"] and not measured["overflowing"], measured
    reset = browser.find_element(By.ID, "reset-state").rect
    assert reset["y"] + reset["height"] <= 900, "Reset state is below the fold: %s" % reset
    shot(browser, "backends-%d" % width, size)


def test_the_root_links_to_the_dashboard(base, browser):
    browser.set_window_size(*LAPTOP)
    browser.get(base + "/")
    link = WebDriverWait(browser, 5).until(lambda b: b.find_element(By.LINK_TEXT, "Open the dashboard"))
    assert "No backend or stub answers GET /" in browser.find_element(By.TAG_NAME, "pre").text
    link.click()
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "connection").text == "live")
