#!/usr/bin/env python3
"""Load benchmark: Understudy against the minimal C evhttp server, in the same run.

For each scenario it runs interleaved rounds (Understudy, C, Understudy, C, ...) with wrk and
prints requests/s, p50/p99 latency and the Understudy/C ratio (the median of the rounds), then
counts user-space instructions per request of both servers with valgrind's callgrind, by the
difference between two runs of different request counts (start-up cost cancels out).

Wall-clock figures swing by 25% between runs on shared machines: read the medians and ratios.
"""
import argparse
import http.client
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNDERSTUDY = os.path.join(ROOT, ".build", "release", "understudy")
C_BASELINE = os.path.join(ROOT, ".build", "bench", "c-baseline")
BENCH_STUBS = os.path.join(ROOT, "bench", "stubs")
FIXED_BODY = os.path.join(BENCH_STUBS, "__files", "fixed.txt")

# name -> path served by Understudy. The C server answers the fixed body on every path.
SCENARIOS = {"fixed-body": "/fixed.txt"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_listening(port, process, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server not listening on {port} after {timeout}s")


def start(kind, threads, prefix=(), extra=()):
    port = free_port()
    if kind == "understudy":
        command = [UNDERSTUDY, "serve", "--port", str(port), "--threads", str(threads), "--stubs", BENCH_STUBS, *extra]
    else:
        command = [C_BASELINE, str(port), str(threads), FIXED_BODY]
    process = subprocess.Popen(list(prefix) + command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_listening(port, process)
    return process, port


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def to_ms(text):
    match = re.match(r"([\d.]+)(us|ms|s)$", text)
    if not match:
        raise RuntimeError(f"cannot read wrk latency '{text}'")
    value, unit = match.groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(url, duration, connections, threads):
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", url],
        capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = to_ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = to_ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"{url}: {errors.group(1)} non-2xx responses")
    return rps, p50, p99


def load_rounds(scenario, path, args):
    results = {"understudy": [], "c": []}
    for round_number in range(1, args.rounds + 1):
        for kind in ("understudy", "c"):
            process, port = start(kind, args.threads)
            try:
                url = f"http://127.0.0.1:{port}{path}"
                wrk(url, 1, args.connections, 2)  # warm-up
                figures = wrk(url, args.duration, args.connections, 2)
            finally:
                stop(process)
            results[kind].append(figures)
            print(f"  {scenario} round {round_number} {kind:10} {figures[0]:>10,.0f} req/s  "
                  f"p50 {figures[1]:.2f} ms  p99 {figures[2]:.2f} ms", flush=True)
    ratios = [u[0] / c[0] for u, c in zip(results["understudy"], results["c"])]
    return results, ratios


def send_requests(port, path, count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(count):
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"{path}: status {response.status}")
    connection.close()


def callgrind_total(kind, path, count, workdir):
    out_file = os.path.join(workdir, f"callgrind.{kind}.{count}")
    prefix = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}"]
    # A journal smaller than the lower request count: both runs are in the steady state where
    # every request also evicts the oldest journal entry, and both end with a full journal.
    process, port = start(kind, 1, prefix, extra=("--journal-size", str(JOURNAL_SIZE_UNDER_CALLGRIND)))
    try:
        send_requests(port, path, count)
    finally:
        stop(process)
    with open(out_file) as profile:
        for line in profile:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {out_file}")


JOURNAL_SIZE_UNDER_CALLGRIND = 1000


def instructions_per_request(kind, path, args, workdir):
    low, high = args.callgrind_requests // 6, args.callgrind_requests
    if low <= JOURNAL_SIZE_UNDER_CALLGRIND:
        sys.exit(f"--callgrind-requests must be over {6 * JOURNAL_SIZE_UNDER_CALLGRIND}")
    return (callgrind_total(kind, path, high, workdir) - callgrind_total(kind, path, low, workdir)) / (high - low)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="server worker threads")
    parser.add_argument("--callgrind-requests", type=int, default=12000)
    parser.add_argument("--no-callgrind", action="store_true")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="default: all")
    args = parser.parse_args()

    for tool, path in (("wrk", shutil.which("wrk")), ("understudy", UNDERSTUDY), ("c-baseline", C_BASELINE)):
        if not path or not os.path.exists(path):
            sys.exit(f"missing {tool}: run 'make bench', which builds and installs what it needs")

    print(f"Understudy vs C evhttp baseline: {args.threads} server threads, wrk -t2 -c{args.connections} "
          f"-d{args.duration}s, {args.rounds} interleaved rounds, {os.cpu_count()} cores")
    summary = []
    for scenario in args.scenario or SCENARIOS:
        path = SCENARIOS[scenario]
        row = {"scenario": scenario}
        if args.rounds > 0:
            results, ratios = load_rounds(scenario, path, args)
            row["ratio"] = statistics.median(ratios)
            for kind in ("understudy", "c"):
                row[kind] = tuple(statistics.median(r[i] for r in results[kind]) for i in range(3))
        if not args.no_callgrind and shutil.which("valgrind"):
            with tempfile.TemporaryDirectory() as workdir:
                row["ir"] = {kind: instructions_per_request(kind, path, args, workdir) for kind in ("understudy", "c")}
        summary.append(row)

    print("\nscenario     server      req/s (median)  p50 ms  p99 ms   ratio U/C   instructions/request")
    for row in summary:
        for kind in ("understudy", "c"):
            rps, p50, p99 = row.get(kind, (0, 0, 0))
            ratio = f"{row['ratio']:.2f}" if kind == "understudy" and "ratio" in row else ""
            ir = f"{row['ir'][kind]:,.0f}" if "ir" in row else "-"
            print(f"{row['scenario']:12} {kind:10} {rps:>15,.0f} {p50:>7.2f} {p99:>7.2f}   {ratio:>9}   {ir:>12}")
        if "ir" in row:
            print(f"{'':12} instructions ratio U/C: {row['ir']['understudy'] / row['ir']['c']:.3f}")


if __name__ == "__main__":
    main()
