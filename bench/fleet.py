"""A team server on this machine: one replica, and one or three replicas behind Debian's nginx with
deploy/nginx/understudy.conf, on the fixed-body route with each request in one of 100 state scopes
(X-Understudy-Scope, hashed by nginx). Interleaved rounds; medians. Reports requests/s and their
ratios, and what nginx adds to one request (the median latency of one connection's requests,
through nginx less direct). On one machine every replica shares its cores with nginx and wrk: the
ratio shows nginx's cost and that the replicas do not get in each other's way, not the capacity
of three machines. Run by bench/run.py (skip with --no-fleet), or alone."""
import os
import shutil
import signal
import statistics
import subprocess
import tempfile

import harness

CONF = os.path.join(harness.ROOT, "deploy", "nginx", "understudy.conf")
SCOPES = 100


def nginx_binary():
    return shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


def start_nginx(workdir, replica_ports):
    """nginx with the shipped config in front of `replica_ports`; its process and port."""
    prefix = tempfile.mkdtemp(dir=workdir)
    os.makedirs(os.path.join(prefix, "logs"))
    port = harness.free_port()
    with open(CONF) as shipped, open(os.path.join(prefix, "understudy.conf"), "w") as conf:
        conf.write(shipped.read().replace("listen 8080;", f"listen 127.0.0.1:{port};"))
    with open(os.path.join(prefix, "understudy-replicas.conf"), "w") as replicas:
        replicas.write("".join(f"server 127.0.0.1:{replica};\n" for replica in replica_ports))
    with open(os.path.join(prefix, "nginx.conf"), "w") as main:
        main.write(("user root;\n" if os.geteuid() == 0 else "")
                   + f"worker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/logs/error.log;\n"
                   + "events { worker_connections 4096; }\n"
                   + f"http {{\n  access_log off;\n  client_body_temp_path {prefix}/body;\n  proxy_temp_path {prefix}/proxy;\n"
                   + f"  include {prefix}/understudy.conf;\n}}\n")
    process = subprocess.Popen([nginx_binary(), "-p", prefix, "-c", os.path.join(prefix, "nginx.conf"), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    harness.wait_until_listening(port, process)
    return process, port


def measure(setup, workdir, args, script):
    """Starts `setup` (direct, or nginx before N replicas), loads it; its (req/s, p50, p99) and one connection's p50."""
    replicas = [harness.start("understudy", args.threads, (None, harness.BENCH_STUBS, None)) for _ in range(max(setup, 1))]
    front = None
    try:
        port = replicas[0][1]
        if setup > 0:
            front, port = start_nginx(workdir, [replica_port for _, replica_port in replicas])
        url = f"http://127.0.0.1:{port}/fixed.txt"
        harness.wrk(url, 1, args.connections, 2, script)  # warm-up
        loaded = harness.wrk(url, args.duration, args.connections, 2, script)
        single = harness.wrk(url, max(2, args.duration // 2), 1, 1, script)
        return loaded, single[1]
    finally:
        if front:
            front.send_signal(signal.SIGQUIT)
            front.wait(timeout=30)
        for process, _ in replicas:
            harness.stop(process)


def report(args):
    if not nginx_binary():
        print("\nteam server: skipped (no nginx; make test's dependencies install it)")
        return
    labels = {0: "one replica, direct", 1: "nginx, one replica", 3: "nginx, three replicas"}
    results = {setup: [] for setup in labels}
    with tempfile.TemporaryDirectory() as workdir:
        script = harness.wrk_scope_script(workdir, SCOPES)
        print(f"\nteam server: fixed-body in {SCOPES} scopes, {args.threads} threads per replica, wrk -t2 -c{args.connections} "
              f"-d{args.duration}s, nginx with 1 worker, {args.rounds} interleaved rounds")
        for round_number in range(1, args.rounds + 1):
            for setup, label in labels.items():
                (rps, p50, p99), single = measure(setup, workdir, args, script)
                results[setup].append((rps, p50, p99, single))
                print(f"  round {round_number} {label:22} {rps:>10,.0f} req/s  p50 {p50:.2f} ms  p99 {p99:.2f} ms  "
                      f"one connection p50 {single * 1000:.0f} µs", flush=True)
    medians = {setup: [statistics.median(r[i] for r in rows) for i in range(4)] for setup, rows in results.items()}
    direct = medians[0]
    print("  medians:")
    for setup, label in labels.items():
        rps, p50, p99, single = medians[setup]
        print(f"    {label:22} {rps:>10,.0f} req/s ({rps / direct[0]:.2f}× direct)  p99 {p99:.2f} ms  "
              f"one connection {single * 1000:.0f} µs ({(single - direct[3]) * 1000:+.0f} µs)")
    print(f"    three replicas / one, both behind nginx: {medians[3][0] / medians[1][0]:.2f}×")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    report(parser.parse_args())
