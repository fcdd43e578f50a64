"""Live channels as a hybrid app's web view opens them (headless Chromium with the server as its
proxy, as device mode has it): a page of a mapped host opens a WebSocket (which Chromium sends
through the proxy as a CONNECT to port 80) and an EventSource, and shows what the stubs send."""
import json
import os
import tempfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import chromium_session
from understudy_server import serve

PAGE = """<!doctype html><title>live</title><ul id="log"></ul><script>
const log = (text) => { const item = document.createElement('li'); item.textContent = text; document.getElementById('log').append(item); };
const socket = new WebSocket('ws://live.example.com/socket');
socket.onopen = () => socket.send('hello from the page');
socket.onmessage = (event) => log('ws: ' + event.data);
socket.onerror = () => log('ws: error');
const prices = new EventSource('/prices');
prices.addEventListener('price', (event) => log('sse ' + event.lastEventId + ': ' + event.data));
</script>"""


@pytest.fixture(scope="module")
def proxied():
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "mappings"))
        os.makedirs(os.path.join(stubs, "message-mappings"))
        json.dump({"live.example.com": "stubs"}, open(os.path.join(stubs, "hosts.json"), "w"))
        json.dump({"request": {"method": "GET", "urlPath": "/app.html"},
                   "response": {"status": 200, "headers": {"Content-Type": "text/html; charset=utf-8"}, "body": PAGE}},
                  open(os.path.join(stubs, "mappings", "page.json"), "w"))
        json.dump({"request": {"method": "GET", "urlPath": "/prices"},
                   "response": {"eventStream": {"events": [{"id": "1", "event": "price", "data": "101.5"},
                                                           {"id": "2", "event": "price", "data": "101.7", "delayMs": 200}],
                                                "keepOpen": True}}},
                  open(os.path.join(stubs, "mappings", "prices.json"), "w"))
        json.dump({"trigger": {"channel": {"type": "websocket", "initiatingRequestPattern": {"urlPath": "/socket"}},
                               "message": {"body": {"equalTo": "hello from the page"}}},
                   "actions": [{"type": "send", "message": {"body": "hi, {{request.headers.Host}}"}}]},
                  open(os.path.join(stubs, "message-mappings", "socket.json"), "w"))
        with serve(stubs, "--ca-dir", os.path.join(stubs, "ca")) as url:
            session = chromium_session("--proxy-server=" + url)
            try:
                yield session, url
            finally:
                session.quit()


def test_a_pages_websocket_and_event_source_reach_the_stubs_through_the_proxy(proxied):
    browser, url = proxied
    browser.get("http://live.example.com/app.html")
    lines = WebDriverWait(browser, 10).until(
        lambda b: (lambda text: text if text.count("\n") >= 2 else None)(b.find_element(By.ID, "log").text))
    assert "ws: hi, live.example.com" in lines
    assert "sse 1: 101.5" in lines and "sse 2: 101.7" in lines
    assert "ws: error" not in lines
