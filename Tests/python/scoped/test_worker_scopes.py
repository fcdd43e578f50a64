"""Eight workers write to one Understudy at once, each in its own state scope, and each sees only
its own writes — also after one of them (gw0) resets its scope in the middle of the run.

Every xdist worker runs test_own_scope_only once, in the scope of conftest.py's `understudy`
fixture: it writes in every emulator, drops a marker in UNDERSTUDY_SCRATCH, and waits while gw0,
once all markers are there, resets its scope; then each checks its state (gw0: that it is gone),
that nothing of the other workers shows through, and its journal count.
Run by ../test_scopes_parallel.py, which starts the server; skipped otherwise.
"""
import json
import os
import re
import time
import uuid
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest

URL = os.environ.get("UNDERSTUDY_URL")
STUBS = os.environ.get("UNDERSTUDY_STUBS")
SCRATCH = os.environ.get("UNDERSTUDY_SCRATCH")
if not (URL and STUBS and SCRATCH):
    pytest.skip("run by Tests/python/test_scopes_parallel.py, which sets UNDERSTUDY_URL, "
                "UNDERSTUDY_STUBS and UNDERSTUDY_SCRATCH", allow_module_level=True)

WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
HTTP_TIMEOUT = 10
BARRIER_TIMEOUT = 30  # the slowest of 8 workers to start on a loaded 2-core machine, with margin
SCOPE_HEADER = "X-Understudy-Scope"
ATOM = "{http://www.w3.org/2005/Atom}"


def fixture(path):
    with open(os.path.join(STUBS, path), encoding="utf-8") as file:
        return json.load(file)


def scope_of(worker):
    return "ci-gw%d" % worker  # as conftest.py names them


def door_of(scope):
    return URL + "/scoped/%s/door" % scope


# --- Commerce: the same registered shopper signs in in every scope, so a shared store would merge
# the workers' carts into one.

CATALOG = fixture("commerce/catalog.json")
SHOPPER = fixture("commerce/shoppers.json")["shoppers"][0]
SERVLET = "/webapp/wcs/stores/servlet/"
CART_PAGE = SERVLET + "mOrderItemDisplay"
STORE = {"storeId": CATALOG["store"]["storeId"], "catalogId": CATALOG["store"]["catalogId"], "langId": "-1"}


class Cart:
    def __init__(self, session, worker):
        self.session = session
        # Two products of this worker's own, one of each, then two (a SKU with that many in stock).
        products = [p for p in CATALOG["products"] if any(s["inventory"] >= 2 for s in p["skus"])]
        self.lines = {}
        for quantity, product in enumerate(products[2 * worker:2 * worker + 2], start=1):
            sku = next(s for s in product["skus"] if s["inventory"] >= quantity)
            self.lines[product["id"]] = (sku["id"], quantity)

    def command(self, name, **fields):
        answer = self.session.post(URL + SERVLET + name, data=dict(STORE, URL="mOrderItemDisplay", **fields),
                                   timeout=HTTP_TIMEOUT)
        assert answer.status_code == 200 and answer.history and answer.history[0].status_code == 302, \
            "%s: %s %s" % (name, answer.status_code, answer.text[:300])
        return answer

    def write(self):
        self.command("Logon", logonId=SHOPPER["logonId"], logonPassword=SHOPPER["password"])
        for sku, quantity in self.lines.values():
            self.command("OrderChangeServiceItemAdd", catEntryId=sku, quantity=str(quantity))
        self.check(kept=True)

    def expected(self):
        return {product: quantity for product, (_, quantity) in self.lines.items()}, \
            sum(quantity for _, quantity in self.lines.values())

    @staticmethod
    def read(page):
        """The cart page's lines ({productId: quantity}) and its header's item count."""
        assert page.status_code == 200, page.text[:300]
        rows = page.text.split('<tr class="orderItem"')[1:]
        lines = {re.search(r"productId=(\d+)", row).group(1):
                 int(re.search(r'class="quantity"[^>]*value="(\d+)"', row).group(1)) for row in rows}
        return lines, int(re.search(r'<span id="cartCount">(\d+)</span>', page.text).group(1))

    def check(self, kept, prefix=""):
        # prefix: the /__scope/NAME form, sent without the header.
        headers = {SCOPE_HEADER: None} if prefix else {}
        page = self.session.get(URL + prefix + CART_PAGE, params=STORE, headers=headers, timeout=HTTP_TIMEOUT)
        assert self.read(page) == (self.expected() if kept else ({}, 0))


# --- Informix: a table of the same name created in every scope (a shared database would refuse all
# but the first CREATE), rows tagged with the scope, and a tagged row in the fixture's customer table.

SERVICES = fixture("informix/config.json")["mounts"]


def sql(session, statement, table, service="generic"):
    """The rows a PHP service answers, each as {COLUMN: text}; fails on the error document."""
    answer = session.post(URL + SERVICES[service], data={"sql_stmt": statement, "tableName": table},
                          timeout=HTTP_TIMEOUT)
    assert answer.status_code == 200, "%s: %s %r" % (statement, answer.status_code, answer.text[:300])
    rows = [{column.tag: (column.text or "").rstrip() for column in row} for row in ET.fromstring(answer.content)]
    assert all(row.get("ThereWasAnError") != "yes" for row in rows), "%s: %s" % (statement, answer.text[:500])
    return [{k: v for k, v in row.items() if k != "ThereWasAnError"} for row in rows]


class Rows:
    def __init__(self, session, scope):
        self.session, self.scope = session, scope

    def write(self):
        create = "CREATE TABLE scope_probe (id SERIAL, scope VARCHAR(64), n INTEGER)"
        assert sql(self.session, create, "scope_probe") == []
        for n in (1, 2, 3):
            # generic.php answers the whole table after each write: only this scope's rows so far.
            insert = "INSERT INTO scope_probe (scope, n) VALUES ('%s', %d)" % (self.scope, n)
            rows = sql(self.session, insert, "scope_probe")
            assert [(row["SCOPE"], row["N"]) for row in rows] == [(self.scope, str(i)) for i in range(1, n + 1)]
        sql(self.session, "INSERT INTO customer (fname, lname, company) VALUES ('%s', 'probe', 'scope-probe')"
            % self.scope[:15], "customer")

    def check(self, kept):
        tables = sql(self.session, "SELECT tabname FROM systables WHERE tabname = 'scope_probe'", "systables", "query")
        tagged = sql(self.session, "SELECT fname FROM customer WHERE company = 'scope-probe'", "customer", "query")
        assert tables == ([{"TABNAME": "scope_probe"}] if kept else [])
        assert tagged == ([{"FNAME": self.scope[:15]}] if kept else [])
        if kept:
            rows = sql(self.session, "SELECT id, scope, n FROM scope_probe ORDER BY id", "scope_probe", "query")
            # Ids 1-3: the SERIAL counter is this scope's own too.
            assert [(row["ID"], row["SCOPE"], row["N"]) for row in rows] == \
                [(str(n), self.scope, str(n)) for n in (1, 2, 3)]


# --- Lotus: every scope updates the same person's status.

PERSON = fixture("lotus/people.json")["people"][0]
STATUS = URL + "/profiles/atom/mv/theboard/entry/status.do"


class Status:
    def __init__(self, session, scope):
        self.session = session
        self.text = "scope check %s %s" % (scope, uuid.uuid4())

    def write(self):
        entry = '<entry xmlns="http://www.w3.org/2005/Atom"><content type="text">%s</content></entry>' % self.text
        answer = self.session.put(STATUS, params={"email": PERSON["email"]}, data=entry.encode(),
                                  headers={"Content-Type": "application/atom+xml"},
                                  auth=(PERSON["email"], PERSON["password"]), timeout=HTTP_TIMEOUT)
        assert answer.status_code == 200, answer.text[:300]

    def check(self, kept):
        answer = self.session.get(STATUS, params={"email": PERSON["email"]}, timeout=HTTP_TIMEOUT)
        assert answer.status_code == 200, answer.text[:300]
        status = ET.fromstring(answer.content).find(ATOM + "content").text
        assert status == (self.text if kept else PERSON["status"]["text"])
        # The status update is also a story of the public feed; no other scope's is there.
        feed = self.session.get(URL + "/news/atom/stories/public", params={"source": "profiles", "ps": "100"},
                                timeout=HTTP_TIMEOUT)
        assert feed.status_code == 200, feed.text[:300]
        stories = [s.text for s in ET.fromstring(feed.content).iter(ATOM + "summary")
                   if (s.text or "").startswith("scope check ")]
        assert stories == ([self.text] if kept else [])


# --- Stubs: a scenario on stubs added through the admin API in this scope.

class Scenario:
    def __init__(self, session, scope):
        self.session, self.scope = session, scope
        self.door = door_of(scope)

    def write(self):
        for mapping in [
            {"scenarioName": "door " + self.scope, "requiredScenarioState": "Started", "newScenarioState": "open",
             "request": {"method": "POST", "url": "/scoped/%s/door" % self.scope},
             "response": {"status": 200, "body": "opened"}},
            {"scenarioName": "door " + self.scope, "requiredScenarioState": "open",
             "request": {"method": "GET", "url": "/scoped/%s/door" % self.scope},
             "response": {"status": 200, "body": "open in " + self.scope}},
        ]:
            answer = self.session.post(URL + "/__admin/mappings", json=mapping, timeout=HTTP_TIMEOUT)
            assert answer.status_code == 201, answer.text[:300]
        assert self.session.get(self.door, timeout=HTTP_TIMEOUT).status_code == 404  # still Started
        assert self.session.post(self.door, timeout=HTTP_TIMEOUT).text == "opened"

    def check(self, kept):
        opened = self.session.get(self.door, timeout=HTTP_TIMEOUT)
        if kept:
            assert (opened.status_code, opened.text) == (200, "open in " + self.scope)
        else:
            # A POST would open the door again if only the scenario had been reset: the stubs are gone.
            assert (opened.status_code, self.session.post(self.door, timeout=HTTP_TIMEOUT).status_code) == (404, 404)
        mappings = self.session.get(URL + "/__admin/mappings", timeout=HTTP_TIMEOUT).json()["mappings"]
        doors = sorted(m["request"]["url"] for m in mappings if m["request"].get("url", "").startswith("/scoped/"))
        assert doors == (["/scoped/%s/door" % self.scope] * 2 if kept else [])
        scenarios = self.session.get(URL + "/__admin/scenarios", timeout=HTTP_TIMEOUT).json()["scenarios"]
        doors = {s["name"]: s["state"] for s in scenarios if s["name"].startswith("door ")}
        assert doors == ({"door " + self.scope: "open"} if kept else {})


# --- The barrier: marker files in the shared scratch folder.

def mark(name, exclusive=True):
    with open(os.path.join(SCRATCH, name), "x" if exclusive else "a"):
        pass


def wait_for(condition, what):
    deadline = time.monotonic() + BARRIER_TIMEOUT
    while not condition():
        failed = [name for name in os.listdir(SCRATCH) if name.startswith("failed-")]
        assert not failed, "gave up waiting for %s: %s" % (what, ", ".join(failed))
        assert time.monotonic() < deadline, "no %s after %d s" % (what, BARRIER_TIMEOUT)
        time.sleep(0.02)


def journal_count(session, prefix=""):
    headers = {SCOPE_HEADER: None} if prefix else {}
    answer = session.post(URL + prefix + "/__admin/requests/count", json={"method": "ANY", "urlPattern": ".*"},
                          headers=headers, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 200, answer.text[:300]
    return answer.json()["count"]


class Sent:
    """Counts the session's requests the journal keeps: all but admin calls (redirects included)."""

    def __init__(self, session):
        self.count = 0
        session.hooks["response"].append(self.hook)

    def hook(self, response, *args, **kwargs):
        path = re.sub(r"^/__scope/[^/]+", "", urlsplit(response.request.url).path)
        if not path.startswith("/__admin/"):
            self.count += 1


# One item per worker (`slot` only makes them): with fewer items than twice the workers, xdist deals
# them round robin, one to each.
@pytest.mark.parametrize("slot", range(WORKERS))
def test_own_scope_only(understudy, worker_id, slot):
    scope = understudy.headers[SCOPE_HEADER]
    worker = int(worker_id[2:]) if worker_id.startswith("gw") else 0
    resetter = worker == 0
    try:
        mark("started-" + worker_id)  # fails if xdist ever gives a worker two slots
        sent = Sent(understudy)
        probes = [Cart(understudy, worker), Rows(understudy, scope), Status(understudy, scope),
                  Scenario(understudy, scope)]
        for probe in probes:
            probe.write()
        mark("written-" + worker_id)

        if resetter:
            wait_for(lambda: sum(name.startswith("written-") for name in os.listdir(SCRATCH)) == WORKERS,
                     "a written marker from every worker")
            answer = understudy.post(URL + "/__admin/reset", timeout=HTTP_TIMEOUT)
            assert answer.status_code == 200, answer.text[:300]
            mark("reset-done")  # before this worker's own checks, so that the others check even if these fail
            sent.count = 0
            assert (journal_count(understudy), journal_count(understudy, "/__scope/" + scope)) == (0, 0)
        else:
            wait_for(lambda: os.path.exists(os.path.join(SCRATCH, "reset-done")), "reset-done marker")

        for probe in probes:
            probe.check(kept=not resetter)
        for other in range(WORKERS):
            if other != worker:  # the others' stubs (gw0's until its reset) live in their scopes only
                for method in ("GET", "POST"):
                    answer = understudy.request(method, door_of(scope_of(other)), timeout=HTTP_TIMEOUT)
                    assert answer.status_code == 404, "%s %s: %s" % (method, answer.url, answer.text[:300])
        # The /__scope/NAME/ prefix, without the header, reaches the same cart and the same journal.
        probes[0].check(kept=not resetter, prefix="/__scope/" + scope)
        assert journal_count(understudy) == sent.count
        assert journal_count(understudy, "/__scope/" + scope) == sent.count
    except BaseException:
        mark("failed-" + worker_id, exclusive=False)  # the others stop waiting at once
        raise
