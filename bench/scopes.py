"""What state scopes cost, with every shipped emulator loaded: making a scope (its first request,
the Informix copy of stores_demo included) and the memory a scope keeps once every emulator and
the stub engine were used in it. Run by bench/run.py (skip with --no-scopes), or alone."""
import base64
import http.client
import json
import os
import statistics
import subprocess
import time

import harness

SHIPPED_STUBS = os.path.join(harness.ROOT, "stubs")
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
STATUS_ENTRY = ('<entry xmlns="http://www.w3.org/2005/Atom"><category scheme="http://www.ibm.com/xmlns/prod/sn/type" term="entry"/>'
                '<category scheme="http://www.ibm.com/xmlns/prod/sn/message-type" term="status"/>'
                '<content type="text">Measuring scopes</content></entry>')
LOTUS_USER = base64.b64encode(b"npoore@renovations.example.com:passw0rd").decode()


def call(connection, method, path, scope, body=None, headers=None):
    """One request in `scope`; its status, after reading the answer."""
    sent = dict(headers or {})
    if scope:
        sent["X-Understudy-Scope"] = scope
    connection.request(method, path, body=body, headers=sent)
    response = connection.getresponse()
    response.read()
    return response.status


def sql(connection, scope, statement):
    body = "sql_stmt=" + statement.replace(" ", "+") + "&tableName=customer"
    return call(connection, "POST", "/informix/generic.php", scope, body, FORM)


# What a CI test does (a write, then a read) in the stub engine and in the emulators it is written
# for here; any other registered emulator is used through its benchmark requests (`uses()`).
WRITTEN_USES = {
    "commerce": lambda connection, scope: [
        call(connection, "POST", "/webapp/wcs/stores/servlet/OrderChangeServiceItemAdd", scope,
             "storeId=10152&catalogId=10051&langId=-1&catEntryId=12601&quantity=1", FORM)],
    "informix": lambda connection, scope: [
        sql(connection, scope, "INSERT INTO customer (fname, lname) VALUES ('Bench', 'Scope')"),
        sql(connection, scope, "SELECT * FROM customer")],
    "lotus": lambda connection, scope: [
        call(connection, "PUT", "/developerworks/mydeveloperworks/profiles/atom/mv/theboard/entry/status.do?email=npoore@renovations.example.com",
             scope, STATUS_ENTRY, {"Authorization": "Basic " + LOTUS_USER, "Content-Type": "application/atom+xml"}),
        call(connection, "GET", "/developerworks/mydeveloperworks/news/atom/stories/public?ps=30", scope)],
    "geocoder": lambda connection, scope: [call(connection, "GET", "/maps/api/geocode/json?address=94086", scope)],
    "stubs": lambda connection, scope: [
        call(connection, "POST", "/__admin/mappings", scope, json.dumps({"request": {"urlPath": "/mine"}, "response": {"body": "mine"}})),
        call(connection, "GET", "/mine", scope)],
}


def benchmark_use(emulator):
    """A use of `emulator` by the requests the load benchmark measures it with."""
    def use(connection, scope):
        return [call(connection, request["method"], request["path"], scope, request["formBody"], FORM if request["formBody"] else None)
                for request in emulator["benchmarks"]]
    return use


def registered_emulators():
    listed = subprocess.run([harness.UNDERSTUDY, "emulators", "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(listed)["emulators"]


def uses():
    """Every registered emulator's use and the stub engine's, by name: the written one where there
    is one, else the emulator's benchmark requests."""
    table = {emulator["name"]: WRITTEN_USES.get(emulator["name"]) or benchmark_use(emulator) for emulator in registered_emulators()}
    table["stubs"] = WRITTEN_USES["stubs"]
    return table


def use(connection, scope, parts=None):
    """The uses of `parts` (default: every emulator and the stub engine) in `scope`."""
    table = uses()
    statuses = [status for part in (parts or table) for status in table[part](connection, scope)]
    if any(status >= 400 for status in statuses):
        raise RuntimeError(f"scope {scope}: statuses {statuses}")


def resident_kib(pid):
    return int(subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True, check=True).stdout.strip())


def started():
    return harness.start("understudy", 2, (None, SHIPPED_STUBS, None))


def creation_cost(count=50):
    """Median milliseconds of a statement in a new scope and of the same in a scope that exists."""
    process, port = started()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        statement = "SELECT COUNT(*) FROM customer"
        sql(connection, None, statement)
        first, again, cheap_first, cheap_again = [], [], [], []
        for n in range(count):
            scope = f"new-{n}"
            began = time.perf_counter()
            sql(connection, scope, statement)
            first.append(time.perf_counter() - began)
            began = time.perf_counter()
            sql(connection, scope, statement)
            again.append(time.perf_counter() - began)
            # A route with no Informix state: what the scope itself costs.
            scope = f"light-{n}"
            began = time.perf_counter()
            call(connection, "GET", "/maps/api/geocode/json?address=94086", scope)
            cheap_first.append(time.perf_counter() - began)
            began = time.perf_counter()
            call(connection, "GET", "/maps/api/geocode/json?address=94086", scope)
            cheap_again.append(time.perf_counter() - began)
        connection.close()
        ms = lambda values: statistics.median(values) * 1000
        return ms(first), ms(again), ms(cheap_first), ms(cheap_again)
    finally:
        harness.stop(process)


def memory_per_scope(count=100, parts=None):
    """KiB of resident memory each of `count` scopes adds once `parts` were used in it, and the
    server's own estimate (GET /__admin/scopes)."""
    process, port = started()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        # The default scope first, twice: caches and lazily made structures are in place.
        use(connection, None, parts)
        use(connection, None, parts)
        time.sleep(0.5)
        before = resident_kib(process.pid)
        for n in range(count):
            use(connection, f"mem-{n}", parts)
        time.sleep(0.5)
        after = resident_kib(process.pid)
        connection.request("GET", "/__admin/scopes")
        listing = json.loads(connection.getresponse().read())
        connection.close()
        estimates = [scope["estimatedBytes"] for scope in listing["scopes"] if scope["name"].startswith("mem-")]
        return (after - before) / count, statistics.median(estimates) / 1024, before
    finally:
        harness.stop(process)


def report():
    first, again, cheap_first, cheap_again = creation_cost()
    print(f"\nstate scopes (all shipped emulators): an Informix statement in a new scope {first:.2f} ms, "
          f"in an existing one {again:.2f} ms (median of 50): making the scope and copying stores_demo ~{first - again:.2f} ms")
    print(f"  a geocoder request in a new scope {cheap_first:.2f} ms, in an existing one {cheap_again:.2f} ms: the scope alone ~{cheap_first - cheap_again:.2f} ms")
    per_scope, estimate, base = memory_per_scope()
    print(f"  memory: {per_scope:,.0f} KiB resident per scope with every emulator and the stub engine used in it "
          f"(100 scopes over {base / 1024:.0f} MiB); the server's estimate {estimate:,.0f} KiB")
    for part in uses():
        per_scope, estimate, _ = memory_per_scope(parts=(part,))
        how = "" if part in WRITTEN_USES else " (its benchmark requests: no write written in bench/scopes.py)"
        print(f"    {part:9} alone: {per_scope:,.0f} KiB resident per scope; the server's estimate {estimate:,.0f} KiB{how}")


if __name__ == "__main__":
    report()
