#!/usr/bin/env python3
"""Soak: every emulator route and a stub under sustained load, one after another, against one
server on the shipped fixtures. For each route: wrk for --seconds with --connections, the
requests answered, errors (socket errors and non-2xx/3xx answers), and the server's resident
memory before and after. Exits 1 if any request failed or the server died.

    make soak                      # 60 s x 256 connections per route
    python3 bench/soak.py --seconds 10 --connections 64
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from run import UNDERSTUDY, ROOT, free_port, stop, wait_until_healthy, wait_until_listening, wrk_post_script

ROUTES = [
    ("geocoder", "/maps/api/geocode/json?address=94086&sensor=false", None),
    ("geocoder-reverse", "/maps/api/geocode/xml?latlng=37.3764,-122.0238&sensor=false", None),
    ("informix", "/informix/generic.php", "sql_stmt=SELECT+*+FROM+customer&tableName=customer"),
    ("lotus", "/news/atom/stories/public?source=blogs&ps=30", None),
    ("commerce-product", "/webapp/wcs/stores/servlet/mProductDisplayView?storeId=10152&catalogId=10051&langId=-1&productId=12001", None),
    ("commerce-search", "/search/resources/store/10152/productview/bySearchTerm/dress?catalogId=10051", None),
    ("stub", "/bus", None),
    ("not-found", "/nothing/here", None),
]


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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
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
            for name, path, body in ROUTES:
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
    print("soak: " + ("FAILED" if failed else "0 errors"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
