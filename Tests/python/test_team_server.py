"""A team server: three replicas on loopback behind Debian's nginx running deploy/nginx/understudy.conf.
Every scope, named by header or by prefix, lands on one replica each time; its journal and counts
are exact there; killing a replica loses only its scopes."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from understudy_server import BINARY, ROOT

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
    replicas = []
    for _ in range(3):
        port = free_port()
        process = subprocess.Popen([BINARY, "serve", "--port", str(port), "--stubs", str(stubs), "--no-watch", "--threads", "2"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        replicas.append((port, process))
    for port, _ in replicas:
        wait_healthy("http://127.0.0.1:%d" % port)
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
        yield base, replicas
    finally:
        server.send_signal(signal.SIGQUIT)
        server.wait(timeout=30)
        for _, process in replicas:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)


def node_of(replicas, scope):
    """The replicas whose journal holds requests of `scope`."""
    holders = []
    for port, process in replicas:
        if process.poll() is not None:
            continue
        status, body = call("http://127.0.0.1:%d/__admin/requests?scope=%s" % (port, scope))
        if status == 200 and json.loads(body)["requests"]:
            holders.append(port)
    return holders


def test_every_scope_lands_on_one_replica_whatever_names_it(fleet):
    base, replicas = fleet
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


def test_a_replica_gone_loses_only_its_scopes(fleet):
    base, replicas = fleet
    scopes = ["run-%d" % n for n in range(30)]
    for scope in scopes:
        mapping = {"request": {"urlPath": "/mine"}, "response": {"body": scope}}
        status, _ = call(base + "/__admin/mappings", "POST", json.dumps(mapping).encode(), {"X-Understudy-Scope": scope, "Content-Type": "application/json"})
        assert status == 201
        assert call(base + "/mine", headers={"X-Understudy-Scope": scope}) == (200, scope.encode())
    home = {scope: node_of(replicas, scope)[0] for scope in scopes}
    victim_port, victim = replicas[0]
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)
    for scope in scopes:
        status, body = call(base + "/mine", headers={"X-Understudy-Scope": scope})
        if home[scope] == victim_port:
            # Retried on another replica, where the scope starts from the fixtures: its stub is gone.
            assert status == 404, (scope, status, body)
        else:
            assert (status, body) == (200, scope.encode()), "%s lived on a replica that is still up" % scope
    assert any(port == victim_port for port in home.values()) and any(port != victim_port for port in home.values())


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
    # nginx finds the replicas file where understudy.conf includes it (relative to /etc/nginx).
    assert "include understudy-replicas.conf;" in open(CONF).read()
    assert "mountPath: /etc/nginx/understudy-replicas.conf" in open(os.path.join(ROOT, "deploy", "kubernetes", "nginx.yaml")).read()
    replicas = open(os.path.join(ROOT, "deploy", "nginx", "understudy-replicas.conf")).read()
    assert "understudy-2.understudy-peers:8080" in replicas and "replicas: 3" in open(manifests[-1]).read()


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
        # A scope's writes stay on their replica.
        status, _ = call(urls[2] + "/__admin/mappings?scope=ci-1", "POST", json.dumps(shared).encode(), {"Content-Type": "application/json"})
        assert status == 201
        assert call(urls[2] + "/shared", headers={"X-Understudy-Scope": "ci-1"}) == (200, b"everywhere")
        assert call(urls[0] + "/shared", headers={"X-Understudy-Scope": "ci-1"})[0] == 404
        # A write forwarded by a peer of another version is refused.
        status, body = call(urls[0] + "/__admin/reset", "POST", b"", {"X-Understudy-Forwarded": "1", "X-Understudy-Version": "0.0.0-other"})
        assert status == 409 and b"0.0.0-other" in body
    finally:
        for _, process in replicas:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
