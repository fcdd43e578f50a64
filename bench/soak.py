#!/usr/bin/env python3
"""Soak: every emulator route and a stub under sustained load, one after another, against one
server on the shipped fixtures. For each route: wrk for --seconds with --connections, the
requests answered, errors (socket errors and non-2xx/3xx answers), and the server's resident
memory before and after. Then the churn scenario: Informix inserts into 300 rotating scope names
on a server capped at 100 scopes, so that nearly every request makes a scope and evicts one, for
--churn-rounds rounds of --churn-seconds; resident memory and the rate per round, and memory once
every scope is deleted. Exits 1 if any request failed, the server died, or churn memory grew (more
than 1 MB per 10,000 evictions after the first two rounds) or did not come back (to within 20 MB of
idle within 10 s of the scopes being deleted).

    make soak                      # 60 s x 256 connections per route, 5 churn rounds of 15 s
    python3 bench/soak.py --seconds 10 --connections 64 --churn-rounds 3
    python3 bench/soak.py --only churn
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import json
import time
import urllib.request

from harness import UNDERSTUDY, ROOT, free_port, stop, wait_until_healthy, wait_until_listening, wrk_post_script

# Besides each registered emulator's benchmark requests (`understudy emulators --json`): a stub
# the shipped stubs folder answers, and a request nothing answers.
OTHER_ROUTES = [
    ("stub", "/bus", None),
    ("not-found", "/nothing/here", None),
]


def routes():
    """(name, path, form body or None) of every route the soak loads, the emulators' first."""
    listed = json.loads(subprocess.run([UNDERSTUDY, "emulators", "--json"], capture_output=True, text=True, check=True).stdout)
    return [(benchmark["name"], benchmark["path"], benchmark["formBody"])
            for emulator in listed["emulators"] for benchmark in emulator["benchmarks"]] + OTHER_ROUTES


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))


def load(url, seconds, connections, script):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s"] + (["-s", script] if script else []) + [url],
                         capture_output=True, text=True, check=True).stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    socket_errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return requests, socket_errors, int(bad.group(1)) if bad else 0


CHURN_SCOPES = 300
CHURN_CAP = 100
# Once every scope is deleted, memory is back within this of idle within this long.
RETURN_SLACK_KIB = 20 * 1024
RETURN_SECONDS = 10


def churn_script(workdir):
    """Inserts into scope churn-N, N rotating over CHURN_SCOPES names: with CHURN_CAP scopes alive,
    each name comes back after its scope was evicted, so nearly every request makes a scope."""
    path = os.path.join(workdir, "churn.lua")
    body = "sql_stmt=INSERT+INTO+state+(code,sname)+VALUES+('ZZ','Churn')&tableName=state"
    with open(path, "w") as script:
        script.write('wrk.method = "POST"\n')
        script.write(f"wrk.body = {json.dumps(body)}\n")
        script.write("local n = 0\n")
        script.write("request = function()\n  n = n + 1\n")
        script.write('  return wrk.format(nil, nil, {["Content-Type"] = "application/x-www-form-urlencoded", '
                     f'["X-Understudy-Scope"] = "churn-" .. (n % {CHURN_SCOPES})}})\nend\n')
    return path


def admin(port, method, path):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.read()


def evictions(port):
    """Scopes evicted so far, from the metrics (scopes made minus those alive)."""
    text = admin(port, "GET", "/__admin/metrics").decode()
    match = re.search(r"^understudy_scope_evictions_total (\d+)", text, re.M)
    return int(match.group(1)) if match else 0


def churn(args, scratch):
    """The churn rounds on a server of their own; True when memory stayed flat and came back."""
    port = free_port()
    server = subprocess.Popen([UNDERSTUDY, "serve", "--port", str(port), "--threads", str(args.threads),
                               "--stubs", os.path.join(ROOT, "stubs"), "--no-watch", "--max-scopes", str(CHURN_CAP)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_listening(port, server)
        wait_until_healthy(port)
        idle = resident_kib(server.pid)
        print(f"churn: Informix inserts into {CHURN_SCOPES} rotating scopes, --max-scopes {CHURN_CAP}, "
              f"{args.churn_rounds} rounds of {args.churn_seconds} s; idle {idle / 1024:.1f} MB")
        print(f"{'round':<6} {'requests/s':>10} {'errors':>7} {'evictions':>10} {'RSS':>9}")
        script = churn_script(scratch)
        url = f"http://127.0.0.1:{port}/informix/generic.php"
        rounds = []
        failed = False
        for number in range(1, args.churn_rounds + 1):
            requests, socket_errors, bad = load(url, args.churn_seconds, 64, script)
            rounds.append((requests / args.churn_seconds, evictions(port), resident_kib(server.pid)))
            rate, evicted, rss = rounds[-1]
            print(f"{number:<6} {rate:>10.0f} {socket_errors + bad:>7} {evicted:>10} {rss / 1024:>7.1f} MB", flush=True)
            failed |= socket_errors + bad > 0 or server.poll() is not None
        admin(port, "DELETE", "/__admin/scopes")
        # The allocator hands freed pages back over about a second (docs/performance-machinery.md,
        # "jemalloc linked as one object"): read the memory every half second, for at most RETURN_SECONDS.
        deleted_at = time.monotonic()
        while True:
            time.sleep(0.5)
            gone = resident_kib(server.pid)
            waited = time.monotonic() - deleted_at
            if gone - idle <= RETURN_SLACK_KIB or waited >= RETURN_SECONDS:
                break
        print(f"every scope deleted: {gone / 1024:.1f} MB ({(gone - idle) / 1024:+.1f} MB from idle) after {waited:.1f} s")
        if len(rounds) >= 3:
            evicted = rounds[-1][1] - rounds[1][1]
            grown = (rounds[-1][2] - rounds[1][2]) / 1024
            allowed = max(1.0, evicted / 10_000)
            print(f"after round 2: {grown:+.1f} MB over {evicted} evictions (at most {allowed:.1f} MB); "
                  f"rate {rounds[1][0]:.0f} -> {rounds[-1][0]:.0f} requests/s")
            failed |= grown > allowed
        failed |= gone - idle > RETURN_SLACK_KIB
        return not failed
    finally:
        if server.poll() is None:
            stop(server)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--churn-rounds", type=int, default=5)
    parser.add_argument("--churn-seconds", type=int, default=15)
    parser.add_argument("--only", choices=["routes", "churn"], help="run one part")
    args = parser.parse_args()
    if args.only == "churn":
        with tempfile.TemporaryDirectory() as scratch:
            flat = churn(args, scratch)
        print("soak: " + ("0 errors" if flat else "FAILED"))
        return 0 if flat else 1
    port = free_port()
    server = subprocess.Popen([UNDERSTUDY, "serve", "--port", str(port), "--threads", str(args.threads),
                               "--stubs", os.path.join(ROOT, "stubs"), "--no-watch"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failed = False
    try:
        wait_until_listening(port, server)
        wait_until_healthy(port)
        print(f"soak: {args.seconds} s x {args.connections} connections per route, {args.threads} server threads")
        print(f"{'route':<18} {'requests':>10} {'errors':>7} {'RSS before':>11} {'RSS after':>10}")
        with tempfile.TemporaryDirectory() as scratch:
            for name, path, body in routes():
                before = resident_kib(server.pid)
                script = wrk_post_script(scratch, body) if body else None
                requests, socket_errors, bad = load(f"http://127.0.0.1:{port}{path}", args.seconds, args.connections, script)
                # A 404 is the right answer on the not-found route.
                errors = socket_errors + (0 if name == "not-found" else bad)
                after = resident_kib(server.pid)
                print(f"{name:<18} {requests:>10} {errors:>7} {before / 1024:>9.1f} MB {after / 1024:>7.1f} MB", flush=True)
                failed |= errors > 0 or server.poll() is not None
                if server.poll() is not None:
                    print(f"the server exited with {server.returncode}")
                    break
    finally:
        if server.poll() is None:
            stop(server)
    if args.only != "routes" and not failed:
        with tempfile.TemporaryDirectory() as scratch:
            failed = not churn(args, scratch)
    print("soak: " + ("FAILED" if failed else "0 errors"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
