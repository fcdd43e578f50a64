"""A team server: three replicas on loopback behind Debian's nginx running deploy/nginx/understudy.conf.
Every scope, named by header or by prefix, lands on one replica each time; its journal and counts
are exact there; killing a replica loses only its scopes, and loudly (410); a replica back keeps
scopes that live elsewhere where they are; a hung one's scopes are answered within 10 s."""
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from understudy_server import BINARY, ROOT, namespace_with_hosts

CONF = os.path.join(ROOT, "deploy", "nginx", "understudy.conf")
TIMEOUT = 10


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(url, method="GET", body=None, headers=None):
    request = urllib.request.Request(url, method=method, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def wait_healthy(url):
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if call(url + "/__admin/health")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    pytest.fail("not healthy: " + url)


@pytest.fixture
def fleet(tmp_path):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(nginx):
        pytest.fail("nginx is needed (make test installs Debian's nginx)")
    stubs = tmp_path / "stubs"
    (stubs / "mappings").mkdir(parents=True)
    (stubs / "mappings" / "ping.json").write_text(json.dumps({"request": {"urlPath": "/ping"}, "response": {"body": "pong"}}))
    # Peers of each other, as a team server's replicas are (the scope directory goes through them).
    replicas = start_replicas(stubs, 3)
    # nginx with the shipped config, its listen port and its replicas set for loopback.
    prefix = tmp_path / "nginx"
    (prefix / "logs").mkdir(parents=True)
    front = free_port()
    conf = open(CONF).read().replace("listen 8080;", "listen 127.0.0.1:%d;" % front)
    (prefix / "understudy.conf").write_text(conf)
    (prefix / "understudy-replicas.conf").write_text("".join("server 127.0.0.1:%d;\n" % port for port, _ in replicas))
    user = "user root;\n" if os.geteuid() == 0 else ""
    (prefix / "nginx.conf").write_text(
        user + "worker_processes 1;\npid %s/nginx.pid;\nerror_log %s/logs/error.log;\nevents {}\n"
        "http {\n  access_log off;\n  client_body_temp_path %s/body;\n  proxy_temp_path %s/proxy;\n"
        "  include %s/understudy.conf;\n}\n" % ((prefix,) * 5))
    checked = subprocess.run([nginx, "-t", "-p", str(prefix), "-c", str(prefix / "nginx.conf")], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    server = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = "http://127.0.0.1:%d" % front
    try:
        wait_healthy(base)
        yield base, replicas, stubs
    finally:
        server.send_signal(signal.SIGQUIT)
        server.wait(timeout=30)
        for _, process in replicas:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)


def node_of(replicas, scope):
    """The replicas that hold `scope` (asked each one's own list: a scope's own queries are relayed to where it lives)."""
    holders = []
    for port, process in replicas:
        if process.poll() is not None:
            continue
        status, body = call("http://127.0.0.1:%d/__admin/scopes" % port)
        if status == 200 and scope in [entry["name"] for entry in json.loads(body)["scopes"]]:
            holders.append(port)
    return holders


def test_every_scope_lands_on_one_replica_whatever_names_it(fleet):
    base, replicas, _ = fleet
    scopes = ["ci-%d" % n for n in range(40)]
    for scope in scopes:
        for _ in range(3):
            assert call(base + "/ping", headers={"X-Understudy-Scope": scope}) == (200, b"pong")
            assert call(base + "/__scope/%s/ping" % scope) == (200, b"pong")
    used = set()
    for scope in scopes:
        holders = node_of(replicas, scope)
        assert len(holders) == 1, "%s is on %s" % (scope, holders)
        used.update(holders)
        # Its counts are exact, asked through nginx (the admin call routed by its scope too).
        status, body = call(base + "/__admin/requests/count?scope=" + scope, "POST", json.dumps({"method": "GET", "urlPath": "/ping"}).encode())
        assert status == 200 and json.loads(body)["count"] == 6, (scope, body)
    assert len(used) == 3, "40 scopes over 3 replicas use them all: %s" % used


def add_stub(base, scope, body):
    mapping = {"request": {"urlPath": "/mine"}, "response": {"body": body}}
    return call(base + "/__admin/mappings", "POST", json.dumps(mapping).encode(), {"X-Understudy-Scope": scope, "Content-Type": "application/json"})[0]


def test_a_replica_gone_loses_its_scopes_loudly_and_a_reset_starts_one_afresh(fleet):
    base, replicas, _ = fleet
    scopes = ["run-%d" % n for n in range(30)]
    for scope in scopes:
        assert add_stub(base, scope, scope) == 201
        assert call(base + "/mine", headers={"X-Understudy-Scope": scope}) == (200, scope.encode())
    home = {scope: node_of(replicas, scope)[0] for scope in scopes}
    victim_port, victim = replicas[0]
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)
    lost = [scope for scope in scopes if home[scope] == victim_port]
    assert lost and len(lost) < len(scopes)
    for scope in scopes:
        request = urllib.request.Request(base + "/mine", headers={"X-Understudy-Scope": scope})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                status, body, header = answer.status, answer.read(), answer.headers.get("X-Understudy-Scope-Lost")
        except urllib.error.HTTPError as error:
            status, body, header = error.code, error.read(), error.headers.get("X-Understudy-Scope-Lost")
        if scope in lost:
            # Not a fresh scope whose stubs are gone (a 404 that looks like a test bug): 410, saying so.
            assert (status, header) == (410, scope), (scope, status, body)
            answer = json.loads(body)
            assert answer["lostReplica"] == "http://127.0.0.1:%d" % victim_port and "/__admin/scopes/%s/reset" % scope in answer["message"]
        else:
            assert (status, body) == (200, scope.encode()), "%s lived on a replica that is still up" % scope
    # A write in a lost scope is refused too; the scope's admin queries say it is lost.
    assert add_stub(base, lost[0], "again") == 410
    assert call(base + "/__admin/requests?scope=" + lost[0])[0] == 410
    # A reset starts it afresh where it now routes: its old stub is gone, new ones stand.
    assert call(base + "/__admin/scopes/%s/reset" % lost[0], "POST")[0] == 200
    assert call(base + "/mine", headers={"X-Understudy-Scope": lost[0]})[0] == 404
    assert add_stub(base, lost[0], "afresh") == 201
    assert call(base + "/mine", headers={"X-Understudy-Scope": lost[0]}) == (200, b"afresh")


def test_a_replica_back_leaves_scopes_where_they_live_and_its_own_stay_lost(fleet):
    base, replicas, stubs = fleet
    scopes = ["back-%d" % n for n in range(30)]
    for scope in scopes:
        assert add_stub(base, scope, scope) == 201
    home = {scope: node_of(replicas, scope)[0] for scope in scopes}
    victim_port, victim = replicas[0]
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)
    lost = [scope for scope in scopes if home[scope] == victim_port]
    # One lost scope made afresh on a survivor while the victim is down, one left lost.
    renewed, still_lost = lost[0], lost[1]
    assert call(base + "/__admin/scopes/%s/reset" % renewed, "POST")[0] == 200
    assert add_stub(base, renewed, "renewed") == 201
    # The victim comes back on its port, a peer as before: it joins with the directory.
    others = ["--peer", "http://127.0.0.1:%d" % replicas[1][0], "--peer", "http://127.0.0.1:%d" % replicas[2][0]]
    back = serve(stubs, victim_port, others)
    replicas[0] = (victim_port, back)
    wait_healthy("http://127.0.0.1:%d" % victim_port)
    # For 15 s (past nginx's fail_timeout, when it sends the victim's hash back to it) every read
    # answers from where each scope lives: none alternates, none starts afresh.
    deadline = time.time() + 15
    while time.time() < deadline:
        assert call(base + "/mine", headers={"X-Understudy-Scope": renewed}) == (200, b"renewed")
        for scope in scopes:
            if scope not in lost:
                assert call(base + "/mine", headers={"X-Understudy-Scope": scope}) == (200, scope.encode()), scope
        assert call(base + "/mine", headers={"X-Understudy-Scope": still_lost})[0] == 410
        time.sleep(0.5)
    # No copy of the renewed scope was made anywhere but where it lives.
    holders = [port for port, _ in replicas
               if renewed in [entry["name"] for entry in json.loads(call("http://127.0.0.1:%d/__admin/scopes" % port)[1])["scopes"]]]
    assert len(holders) == 1 and holders[0] != victim_port


def test_a_scopes_admin_routes_through_nginx_reach_its_replica(fleet):
    base, replicas, _ = fleet
    assert add_stub(base, "routed", "mine") == 201
    [home] = node_of(replicas, "routed")
    status, body = call(base + "/__admin/scopes/routed")
    assert status == 200 and json.loads(body)["name"] == "routed"
    assert call(base + "/__admin/scopes/routed/reset", "POST")[0] == 200
    assert call(base + "/mine", headers={"X-Understudy-Scope": "routed"})[0] == 404, "reset where the scope lives"
    for port, _ in replicas:
        names = [entry["name"] for entry in json.loads(call("http://127.0.0.1:%d/__admin/scopes" % port)[1])["scopes"]]
        assert ("routed" in names) == (port == home), (port, names)
    # Its requests sent straight to another replica are relayed there; a WebSocket is told where.
    other = next(port for port, _ in replicas if port != home)
    assert call("http://127.0.0.1:%d/mine" % other, headers={"X-Understudy-Scope": "routed"})[0] == 404
    assert add_stub("http://127.0.0.1:%d" % other, "routed", "relayed") == 201
    assert call("http://127.0.0.1:%d/mine" % home, headers={"X-Understudy-Scope": "routed"}) == (200, b"relayed")
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", other, timeout=TIMEOUT)
    connection.request("GET", "/chat", headers={"X-Understudy-Scope": "routed", "Upgrade": "websocket", "Connection": "Upgrade",
                                                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"})
    answer = connection.getresponse()
    assert answer.status == 421 and ("%d" % home).encode() in answer.read()
    connection.close()


def test_a_hung_replicas_scopes_are_answered_within_ten_seconds(fleet):
    base, replicas, _ = fleet
    scopes = ["hung-%d" % n for n in range(12)]
    for scope in scopes:
        assert call(base + "/ping", headers={"X-Understudy-Scope": scope}) == (200, b"pong")
    home = {scope: node_of(replicas, scope)[0] for scope in scopes}
    # Where scopes land depends on the replicas' ports (random here): stop the one holding the first.
    port, process = next(replica for replica in replicas if replica[0] == home[scopes[0]])
    stuck = [scope for scope in scopes if home[scope] == port]
    process.send_signal(signal.SIGSTOP)
    try:
        # A stop takes effect when the thread that takes the signal runs (under load, some ms
        # later): until every thread is stopped, the replica still answers.
        tasks = "/proc/%d/task" % process.pid
        deadline = time.time() + 10
        while not all(open(os.path.join(tasks, task, "stat")).read().rsplit(")", 1)[1].split()[0] == "T" for task in os.listdir(tasks)):
            assert time.time() < deadline, "the replica did not stop"
            time.sleep(0.01)
        started = time.time()
        status, body = call(base + "/ping", headers={"X-Understudy-Scope": stuck[0]})
        assert time.time() - started < 10
        if status not in (410, 503):
            # What each replica holds and knows, to see how the scope was answered elsewhere.
            seen = {other: ([entry["name"] for entry in json.loads(call("http://127.0.0.1:%d/__admin/scopes" % other)[1])["scopes"]],
                            json.loads(call("http://127.0.0.1:%d/__admin/fleet/scopes" % other)[1]).get(stuck[0]))
                    for other, _ in replicas if other != port}
            state = open("/proc/%d/status" % process.pid).read().split("State:")[1].split("\n")[0].strip()
            pytest.fail("%s (home %d, %s) answered %d %r after %.2f s; the others: %r" % (stuck[0], port, state, status, body, time.time() - started, seen))
        assert str(port) in body.decode(), (status, body)
    finally:
        process.send_signal(signal.SIGCONT)


def test_a_replica_joining_answers_503_until_it_has_the_shared_state(tmp_path):
    import socket
    stubs = tmp_path / "stubs"
    (stubs / "mappings").mkdir(parents=True)
    (stubs / "mappings" / "ping.json").write_text(json.dumps({"request": {"urlPath": "/ping"}, "response": {"body": "pong"}}))
    # A peer that takes connections and never answers: joining waits for it (5 s).
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    port = free_port()
    process = serve(stubs, port, ["--peer", "http://127.0.0.1:%d" % silent.getsockname()[1]])
    url = "http://127.0.0.1:%d" % port
    try:
        deadline = time.time() + 30
        while True:
            try:
                request = urllib.request.Request(url + "/ping")
                urllib.request.urlopen(request, timeout=TIMEOUT)
                pytest.fail("answered before joining")
            except urllib.error.HTTPError as error:
                assert error.code == 503 and error.headers.get("Retry-After") and b"joining" in error.read()
                break
            except OSError:
                assert time.time() < deadline
                time.sleep(0.05)
        wait_healthy(url)
        assert call(url + "/ping") == (200, b"pong")
    finally:
        stop([process])
        silent.close()


def test_the_kubernetes_manifests_validate_and_the_kustomization_holds_together():
    import glob
    import sys
    manifests = sorted(glob.glob(os.path.join(ROOT, "deploy", "kubernetes", "*.yaml")))
    assert manifests
    validator = os.path.join(os.path.dirname(sys.executable), "kubernetes-validate")
    done = subprocess.run([validator, "--strict", "-k", "1.30.0"] + manifests, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    kustomization = open(os.path.join(ROOT, "deploy", "kustomization.yaml")).read()
    for listed in ["kubernetes/understudy.yaml", "kubernetes/nginx.yaml", "nginx/understudy.conf", "nginx/understudy-replicas.conf"]:
        assert listed in kustomization and os.path.exists(os.path.join(ROOT, "deploy", listed)), listed
    # nginx finds the replicas file where understudy.conf includes it (relative to /etc/nginx), and
    # re-resolves the ready replicas (a zone for the upstream, `resolve` with a resolver).
    conf = open(CONF).read()
    assert "include understudy-replicas.conf;" in conf and "zone understudy_replicas" in conf
    nginx = open(os.path.join(ROOT, "deploy", "kubernetes", "nginx.yaml")).read()
    assert "mountPath: /etc/nginx/understudy-replicas.conf" in nginx
    replicas = open(os.path.join(ROOT, "deploy", "nginx", "understudy-replicas.conf")).read()
    assert "server understudy-ready.default.svc.cluster.local:8080 resolve;" in replicas and "\nresolver " in replicas
    understudy = open(os.path.join(ROOT, "deploy", "kubernetes", "understudy.yaml")).read()
    assert "replicas: 3" in understudy and "name: understudy-ready" in understudy
    # Hardened as the issue of a team server's failures asked: no floating tags, no default secret,
    # read-only roots, RuntimeDefault seccomp, spread over nodes, a PDB for each.
    for text in (understudy, nginx):
        assert ":latest" not in text and "seccompProfile: {type: RuntimeDefault}" in text and "readOnlyRootFilesystem: true" in text
        assert "topologySpreadConstraints" in text and "kind: PodDisruptionBudget" in text
    assert "kind: Secret" not in understudy and "change-me" not in understudy
    assert "secretGenerator" in kustomization and "token=admin-token.txt" in kustomization
    assert "deploy/admin-token.txt" in open(os.path.join(ROOT, ".gitignore")).read()


def start_replicas(stubs, count, peers=True, extra_peers=()):
    ports = [free_port() for _ in range(count)]
    replicas = []
    for port in ports:
        peer_options = []
        if peers:
            for other in ports:
                if other != port:
                    peer_options += ["--peer", "http://127.0.0.1:%d" % other]
        for url in extra_peers:
            peer_options += ["--peer", url]
        process = subprocess.Popen([BINARY, "serve", "--port", str(port), "--stubs", str(stubs), "--no-watch", "--threads", "2"] + peer_options,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        replicas.append((port, process))
    for port, _ in replicas:
        wait_healthy("http://127.0.0.1:%d" % port)
    return replicas


def test_the_default_scopes_admin_writes_reach_every_replica(tmp_path):
    stubs = tmp_path / "stubs"
    (stubs / "mappings").mkdir(parents=True)
    closed = "http://127.0.0.1:%d" % free_port()
    replicas = start_replicas(stubs, 3, extra_peers=[closed])
    urls = ["http://127.0.0.1:%d" % port for port, _ in replicas]
    try:
        shared = {"request": {"urlPath": "/shared"}, "response": {"body": "everywhere"}}
        status, body = call(urls[0] + "/__admin/mappings", "POST", json.dumps(shared).encode(), {"Content-Type": "application/json"})
        assert status == 201
        made = json.loads(body)["id"]
        for url in urls:
            assert call(url + "/shared") == (200, b"everywhere"), url
            status, one = call(url + "/__admin/mappings/" + made)
            assert status == 200 and json.loads(one)["id"] == made, "the same id on every replica"
        # The answer names the peer that could not be reached; the write stands.
        request = urllib.request.Request(urls[1] + "/__admin/mappings/" + made, method="DELETE")
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            assert answer.status == 200 and closed in (answer.headers.get("X-Understudy-Peers-Failed") or "")
        for url in urls:
            assert call(url + "/shared")[0] == 404, "removed everywhere: " + url
        # A scope's writes stay on their replica: another replica relays the scope's requests there
        # and holds no copy of it.
        status, _ = call(urls[2] + "/__admin/mappings?scope=ci-1", "POST", json.dumps(shared).encode(), {"Content-Type": "application/json"})
        assert status == 201
        assert call(urls[2] + "/shared", headers={"X-Understudy-Scope": "ci-1"}) == (200, b"everywhere")
        assert call(urls[0] + "/shared", headers={"X-Understudy-Scope": "ci-1"}) == (200, b"everywhere")
        assert "ci-1" not in [entry["name"] for entry in json.loads(call(urls[0] + "/__admin/scopes")[1])["scopes"]]
        assert json.loads(call(urls[0] + "/__admin/fleet/scopes")[1]) == {"ci-1": urls[2]}
        # A write forwarded by a peer of another version is refused.
        status, body = call(urls[0] + "/__admin/reset", "POST", b"", {"X-Understudy-Forwarded": "1", "X-Understudy-Version": "0.0.0-other"})
        assert status == 409 and b"0.0.0-other" in body
    finally:
        for _, process in replicas:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def serve(stubs, port, peer_options, bind="127.0.0.1", wrap=()):
    return subprocess.Popen(list(wrap) + [BINARY, "serve", "--port", str(port), "--bind", bind, "--stubs", str(stubs), "--no-watch",
                                          "--threads", "2"] + peer_options, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(processes):
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def test_a_replica_started_later_takes_the_shared_stubs_and_the_fleet_is_seen_whole(tmp_path):
    stubs = tmp_path / "stubs"
    (stubs / "mappings").mkdir(parents=True)
    (stubs / "mappings" / "ping.json").write_text(json.dumps({"request": {"urlPath": "/ping"}, "response": {"body": "pong"}}))
    ports = [free_port() for _ in range(3)]
    urls = ["http://127.0.0.1:%d" % port for port in ports]

    def peers_of(index):
        return sum((["--peer", url] for url in urls if url != urls[index]), [])

    processes = [serve(stubs, ports[0], peers_of(0)), serve(stubs, ports[1], peers_of(1))]
    try:
        for url in urls[:2]:
            wait_healthy(url)
        shared = {"request": {"urlPath": "/shared"}, "response": {"body": "everywhere"}}
        status, body = call(urls[0] + "/__admin/mappings", "POST", json.dumps(shared).encode(), {"Content-Type": "application/json"})
        assert status == 201
        made = json.loads(body)["id"]
        status, _ = call(urls[1] + "/__admin/settings", "POST", json.dumps({"fixedDelay": 1}).encode(), {"Content-Type": "application/json"})
        assert status == 200
        # The third replica starts now: it takes the shared mapping (with its id) and settings before it is healthy.
        processes.append(serve(stubs, ports[2], peers_of(2)))
        wait_healthy(urls[2])
        assert call(urls[2] + "/shared") == (200, b"everywhere")
        assert json.loads(call(urls[2] + "/__admin/mappings/" + made)[1])["id"] == made
        assert json.loads(call(urls[2] + "/__admin/settings")[1])["settings"]["fixedDelay"] == 1

        # Each replica holds one scope's requests; a journal query over every scope gathers them all.
        for index, url in enumerate(urls):
            for _ in range(index + 1):
                assert call(url + "/ping", headers={"X-Understudy-Scope": "job-%d" % index}) == (200, b"pong")
        status, body = call(urls[1] + "/__admin/requests?scope=*")
        assert status == 200
        listing = json.loads(body)
        # Six pings in the scopes, and the default scope's GET /shared on the third.
        assert listing["meta"]["total"] == 7 and len(listing["requests"]) == 7
        pings = [entry["node"] for entry in listing["requests"] if entry["request"]["url"] == "/ping"]
        assert sorted(pings) == sorted([urls[0]] + [urls[1]] * 2 + [urls[2]] * 3)
        dates = [entry["request"]["loggedDate"] for entry in listing["requests"]]
        assert dates == sorted(dates, reverse=True), "newest first across the replicas"
        assert len(json.loads(call(urls[1] + "/__admin/requests?scope=*&limit=2")[1])["requests"]) == 2
        pattern = json.dumps({"method": "GET", "urlPath": "/ping"}).encode()
        status, body = call(urls[2] + "/__admin/requests/count?scope=*", "POST", pattern, {"Content-Type": "application/json"})
        assert (status, json.loads(body)["count"]) == (200, 6)
        status, body = call(urls[0] + "/__admin/requests/find?scope=*", "POST", pattern, {"Content-Type": "application/json"})
        assert {entry["node"] for entry in json.loads(body)["requests"]} == set(urls)

        # The fleet as one replica sees it.
        fleet = json.loads(call(urls[0] + "/__admin/fleet")[1])
        nodes = {node["node"]: node for node in fleet["nodes"]}
        assert set(nodes) == set(urls) and fleet["self"] == urls[0]
        for index, url in enumerate(urls):
            assert nodes[url]["status"] == "healthy" and nodes[url]["version"] == fleet["nodes"][0]["version"]
            assert nodes[url]["scopes"] == ["job-%d" % index]
            assert nodes[url]["residentBytes"] > 1000000
        assert fleet["joined"] != "joining", "the first replicas started together: each joined with the other's state or none"
        assert "took the shared state from" in json.loads(call(urls[2] + "/__admin/fleet")[1])["joined"]
        # One scope's query asked of another replica is answered by the scope's own (relayed).
        status, body = call(urls[0] + "/__admin/requests/count?scope=job-2", "POST", pattern, {"Content-Type": "application/json"})
        assert json.loads(body)["count"] == 3

        # A replica gone: the fleet view says so, and the gathered journal names it and counts the rest.
        processes[1].send_signal(signal.SIGKILL)
        processes[1].wait(timeout=10)
        fleet = json.loads(call(urls[0] + "/__admin/fleet")[1])
        assert {node["node"]: node["status"] for node in fleet["nodes"]}[urls[1]] == "unreachable"
        request = urllib.request.Request(urls[0] + "/__admin/requests/count?scope=*", data=pattern, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            assert json.loads(answer.read())["count"] == 4
            assert urls[1] in answer.headers["X-Understudy-Peers-Failed"]
    finally:
        stop(processes)


def test_replicas_found_by_dns_share_their_writes_and_one_named_alone_serves_alone(tmp_path):
    """--peers-dns as on Kubernetes: a headless Service's name resolving to every replica (here
    /etc/hosts in a mount namespace of the replicas' own, with three loopback addresses on one port)."""
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n127.0.0.2 fleet.test\n127.0.0.3 fleet.test\n127.0.0.5 alone.test\n")
    wrap = namespace_with_hosts(hosts, "fleet.test", "127.0.0.2")
    if wrap is None:
        pytest.skip("no mount namespace for a test /etc/hosts here (Linux's unshare)")
    stubs = tmp_path / "stubs"
    (stubs / "mappings").mkdir(parents=True)
    port = free_port()
    urls = ["http://127.0.0.%d:%d" % (n, port) for n in (2, 3, 4)]
    dns = ["--peers-dns", "fleet.test:%d" % port]
    processes = [serve(stubs, port, dns, bind="127.0.0.%d" % n, wrap=wrap) for n in (2, 3)]
    try:
        for url in urls[:2]:
            wait_healthy(url)
        shared = {"request": {"urlPath": "/shared"}, "response": {"body": "everywhere"}}
        status, _ = call(urls[1] + "/__admin/mappings", "POST", json.dumps(shared).encode(), {"Content-Type": "application/json"})
        assert status == 201
        assert call(urls[0] + "/shared") == (200, b"everywhere")
        # The name now names a third replica too (as a Service does when a pod comes).
        with open(hosts, "a") as more:
            more.write("127.0.0.4 fleet.test\n")
        processes.append(serve(stubs, port, dns, bind="127.0.0.4", wrap=wrap))
        wait_healthy(urls[2])
        assert call(urls[2] + "/shared") == (200, b"everywhere")
        fleet = json.loads(call(urls[2] + "/__admin/fleet")[1])
        assert sorted(node["node"] for node in fleet["nodes"]) == urls
        assert all(node["status"] == "healthy" for node in fleet["nodes"])
        assert fleet["discovery"]["dns"]["addresses"] == ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
        # The first replicas find the third by resolving the name again (every 10 s): a write made
        # on one of them then reaches it.
        deadline = time.time() + 30
        while time.time() < deadline:
            status, body = call(urls[0] + "/__admin/mappings", "POST", json.dumps({"id": "0c6f3b1e-5d1a-4c36-9d0e-2f8a7a1b9c41", "request": {"urlPath": "/late"}, "response": {"body": "late"}}).encode(),
                                {"Content-Type": "application/json"})
            if all(call(url + "/late") == (200, b"late") for url in urls):
                break
            time.sleep(1)
        else:
            pytest.fail("the first replicas never found the third")
        # A name that resolves to this replica alone: it serves alone, and says so.
        alone = serve(stubs, port, ["--peers-dns", "alone.test:%d" % port], bind="127.0.0.5", wrap=wrap)
        processes.append(alone)
        wait_healthy("http://127.0.0.5:%d" % port)
        fleet = json.loads(call("http://127.0.0.5:%d/__admin/fleet" % port)[1])
        assert len(fleet["nodes"]) == 1 and "serving alone" in fleet["discovery"]["dns"]["message"], fleet
    finally:
        stop(processes)
