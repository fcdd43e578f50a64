"""What device mode's per-scope features cost and deliver.

1. Network conditions: for each profile a scope is given, the latency (median time to the answer's
   head over 5 small requests) and the down rate achieved over a 1 MB answer, as ratios to the
   profile's own figures (target: within 10%).
2. The scope look-up per proxied request: instructions (callgrind) of a plain proxied GET without
   proxy credentials against the same GET whose Proxy-Authorization names a scope, and against the
   same GET in a scope that has network conditions set (a zero latency, so the timer path is taken).

Run by bench/run.py (skip with --no-network), or alone."""
import base64
import http.client
import json
import os
import shutil
import statistics
import tempfile
import time

import harness

MEGABYTE = 1 << 20
PROFILES = ("wifi", "lte", "3g", "edge", "very-bad")
PROXIED_PATH = "http://www.bench.example/fixed.txt"


def started(workdir, prefix=()):
    """Understudy on the bench stubs plus a 1 MB file, with every name under .bench.example mapped to them."""
    return harness.start_for_devices(workdir, {"megabyte.bin": os.urandom(MEGABYTE)}, prefix,
                                     extra=("--journal-size", str(harness.JOURNAL_SIZE_UNDER_CALLGRIND)))


def admin(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body=json.dumps(body) if body is not None else None,
                       headers={"Content-Type": "application/json"})
    answer = connection.getresponse()
    text = answer.read()
    connection.close()
    if answer.status != 200:
        raise RuntimeError(f"{method} {path}: {answer.status} {text[:200]!r}")
    return json.loads(text) if text else None


def timed_get(port, path, scope):
    """Seconds to the answer's head, seconds from the head to the last byte, and the body's length."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    began = time.perf_counter()
    connection.request("GET", path, headers={"X-Understudy-Scope": scope})
    answer = connection.getresponse()
    head = time.perf_counter()
    body = answer.read()
    done = time.perf_counter()
    connection.close()
    if answer.status != 200:
        raise RuntimeError(f"{path} in {scope}: status {answer.status}")
    return head - began, done - head, len(body)


def median_head(port, scope):
    return statistics.median(timed_get(port, "/fixed.txt", scope)[0] for _ in range(5)) * 1000


def profiles_report(port):
    # What a request costs on loopback without conditions: taken off each profile's latency.
    base = median_head(port, "net-none")
    print(f"\nnetwork profiles (a scope each; latency: median of 5 small answers less {base:.1f} ms, the same without "
          "conditions; rate: one 1 MB answer, from its head to its last byte):")
    print(f"  {'profile':9} {'latency ms':>10} {'achieved':>9} {'ratio':>6}   {'down kbps':>9} {'achieved':>9} {'ratio':>6}")
    for profile in PROFILES:
        scope = "net-" + profile
        figures = admin(port, "PUT", f"/__admin/scopes/{scope}/network", {"profile": profile})["network"]
        latency = median_head(port, scope) - base
        head, rest, size = timed_get(port, "/megabyte.bin", scope)
        kbps = size * 8 / 1000 / rest if rest > 0 else float("inf")
        wanted_latency, wanted_kbps = figures["latencyMs"], figures["downKbps"]
        print(f"  {profile:9} {wanted_latency:>10} {latency:>9.0f} {latency / max(wanted_latency, 1):>6.2f}   "
              f"{wanted_kbps:>9} {kbps:>9.0f} {kbps / wanted_kbps:>6.2f}", flush=True)


def proxied_requests(port, count, credentials, header_scope=None):
    """`count` plain proxied GETs on one kept-alive connection to the proxy."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Host": "www.bench.example"}
    if credentials:
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode()
    if header_scope:
        headers["X-Understudy-Scope"] = header_scope
    for _ in range(count):
        connection.request("GET", PROXIED_PATH, headers=headers)
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            raise RuntimeError(f"proxied GET: status {answer.status}")
    connection.close()


def proxied_instructions(workdir, count, credentials, network=None, header_scope=None):
    """Total instructions of a server that answered `count` proxied requests."""
    out_file = os.path.join(workdir, f"callgrind.{count}")
    folder = tempfile.mkdtemp(dir=workdir)
    process, port = started(folder, ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}"])
    try:
        if network:
            admin(port, "PUT", f"/__admin/scopes/{credentials.split(':')[0]}/network", network)
        proxied_requests(port, count, credentials, header_scope)
    finally:
        harness.stop(process)
    with open(out_file) as profile:
        for line in profile:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {out_file}")


def lookup_report(requests=7200):
    low = requests // 6
    if low <= harness.JOURNAL_SIZE_UNDER_CALLGRIND:
        raise SystemExit(f"requests must be over {6 * harness.JOURNAL_SIZE_UNDER_CALLGRIND}")
    cases = [("no credentials (default scope)", None, None, None),
             ("the header naming a scope", None, None, "ci-1"),
             ("credentials naming a scope", "ci-1:x", None, None),
             ("a scope with conditions (latency 0)", "ci-1:x", {"latencyMs": 0, "downKbps": 10_000_000}, None)]
    figures = []
    with tempfile.TemporaryDirectory() as workdir:
        for label, credentials, network, header_scope in cases:
            per_request = (proxied_instructions(workdir, requests, credentials, network, header_scope)
                           - proxied_instructions(workdir, low, credentials, network, header_scope)) / (requests - low)
            figures.append((label, per_request))
    base = figures[0][1]
    print(f"\nthe scope look-up per proxied request (callgrind, {requests} − {low} requests):")
    for label, per_request in figures:
        print(f"  {label:38} {per_request:>9,.0f} instructions/request  ({per_request - base:+,.0f}, {per_request / base:.3f}×)")


def report(callgrind=True):
    with tempfile.TemporaryDirectory() as workdir:
        process, port = started(workdir)
        try:
            profiles_report(port)
        finally:
            harness.stop(process)
    if callgrind and shutil.which("valgrind"):
        lookup_report()


if __name__ == "__main__":
    report()
