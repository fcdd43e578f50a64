"""What every bench script shares: where the binaries and the bench stubs are, starting and
stopping a server (Understudy, the C baseline or the C WebSocket echo server), waiting for it, and
running wrk. bench/run.py and the parts it runs (scopes, device, network, fleet, soak) import this,
not each other."""
import glob
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The servers' local CA (device mode) in a scratch folder, not in the home directory.
os.environ.setdefault("UNDERSTUDY_CA_DIR", tempfile.mkdtemp(prefix="understudy-bench-ca-"))
# UNDERSTUDY_BINARY points the benches at another build (a debug one, to try a bench script out).
UNDERSTUDY = os.environ.get("UNDERSTUDY_BINARY") or os.path.join(ROOT, ".build", "release", "understudy")
C_BASELINE = os.path.join(ROOT, ".build", "bench", "c-baseline")
C_WEBSOCKET_ECHO = os.path.join(ROOT, ".build", "bench", "c-websocket-echo")
WS_LOAD = os.path.join(ROOT, ".build", "bench", "ws-load")
BENCH_STUBS = os.path.join(ROOT, "bench", "stubs")
# The standalone WireMock jar the `wiremock` PyPI package ships (make test's venv installs it), or
# WIREMOCK_JAR: `bench/run.py --peer wiremock` runs it beside Understudy and C.
WIREMOCK_JAR = os.environ.get("WIREMOCK_JAR") or next(
    iter(sorted(glob.glob(os.path.join(ROOT, ".build", "venv", "lib", "python*", "site-packages", "wiremock", "server", "wiremock-standalone-*.jar")))), None)
# Under callgrind the journal is kept smaller than the lower request count, so both counted runs
# are in the steady state where every request also evicts the oldest entry.
JOURNAL_SIZE_UNDER_CALLGRIND = 1000


def wrk_post_script(workdir, body):
    """A wrk Lua script that sends `body` as a form POST."""
    path = os.path.join(workdir, "post.lua")
    with open(path, "w") as script:
        script.write('wrk.method = "POST"\n')
        script.write(f"wrk.body = {json.dumps(body)}\n")
        script.write('wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n')
    return path


def wrk_scope_script(workdir, scopes):
    """A wrk Lua script that names one of `scopes` state scopes per request, in turn."""
    path = os.path.join(workdir, f"scopes-{scopes}.lua")
    with open(path, "w") as script:
        script.write("local n = 0\n")
        script.write("request = function()\n  n = n + 1\n")
        script.write(f'  return wrk.format(nil, nil, {{["X-Understudy-Scope"] = "ci-" .. (n % {scopes})}})\nend\n')
    return path



def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_listening(port, process, timeout=60, pause=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(pause)
    raise RuntimeError(f"server not listening on {port} after {timeout}s")


def wait_until_healthy(port, timeout=300, pause=0.05, path="/__admin/health"):
    """Emulators load their fixtures in the background; /__admin/health says 200 once all have."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        # Generous: under valgrind the loop thread waits its turn behind the loading thread.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return
        except ConnectionError:
            # Under valgrind the first request can outlast the idle timeout: ask again.
            pass
        finally:
            connection.close()
        time.sleep(pause)
    raise RuntimeError(f"server on {port} not healthy after {timeout}s")


def start(kind, threads, setup, prefix=(), extra=()):
    _, stubs, body_file = setup
    port = free_port()
    if kind == "understudy":
        command = [UNDERSTUDY, "serve", "--port", str(port), "--threads", str(threads), "--stubs", stubs, "--no-watch", *extra]
    elif kind == "wiremock":
        # Its journal bounded as Understudy's is by default; Jetty's threads are WireMock's default.
        command = ["java", "-jar", WIREMOCK_JAR, "--port", str(port), "--bind-address", "127.0.0.1", "--root-dir", stubs,
                   "--disable-banner", "--max-request-journal-entries", "10000", *extra]
    elif kind == "c-websocket":
        command = [C_WEBSOCKET_ECHO, str(port), str(threads)]
    else:
        command = [C_BASELINE, str(port), str(threads), body_file]
    process = subprocess.Popen(list(prefix) + command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_listening(port, process)
    if kind == "understudy":
        wait_until_healthy(port)
    elif kind == "wiremock":
        wait_until_healthy(port, timeout=120, path="/__admin/mappings?limit=1")  # 2.35 has no health route
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


def wrk(url, duration, connections, threads, script=None):
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency"] + (["-s", script] if script else []) + [url],
        capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = to_ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = to_ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"{url}: {errors.group(1)} non-2xx responses")
    return rps, p50, p99


def device_stubs(workdir, more_files=None):
    """The bench stubs plus `more_files` (name -> bytes under __files/), with every name under
    .bench.example mapped to them (hosts.json, which turns device mode on): the folder's path."""
    stubs = os.path.join(workdir, "device-stubs")
    shutil.copytree(os.path.join(BENCH_STUBS, "__files"), os.path.join(stubs, "__files"))
    for name, content in (more_files or {}).items():
        with open(os.path.join(stubs, "__files", name), "wb") as file:
            file.write(content)
    with open(os.path.join(stubs, "hosts.json"), "w") as hosts:
        json.dump({"*.bench.example": "files"}, hosts)
    return stubs


def start_for_devices(workdir, more_files=None, prefix=(), extra=()):
    """Understudy (one thread) on `device_stubs`, its CA in `workdir`."""
    stubs = device_stubs(workdir, more_files)
    return start("understudy", 1, (None, stubs, None), prefix, extra=("--ca-dir", os.path.join(workdir, "ca"), *extra))


def resident_memory(pid):
    """(VmRSS, RssAnon) of a process in MB, from /proc; None where there is no /proc."""
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        return tuple(int(fields[name].split()[0]) / 1024 for name in ("VmRSS", "RssAnon"))
    except (OSError, KeyError, ValueError):
        return None
