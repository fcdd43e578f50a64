"""Starts the built understudy on a free port for the Python client tests."""
import base64
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("UNDERSTUDY_BINARY", os.path.join(ROOT, ".build", "debug", "understudy"))


@contextlib.contextmanager
def serve(stubs, *arguments, timeout=60):
    """Yields the server's base URL once /__admin/health answers 200; stops it with SIGTERM after."""
    with tempfile.TemporaryDirectory() as scratch:
        port_file = os.path.join(scratch, "port")
        # Device mode's local CA in the scratch folder, not in the home directory (unless a test names one).
        environment = dict(os.environ, UNDERSTUDY_CA_DIR=os.environ.get("UNDERSTUDY_CA_DIR", os.path.join(scratch, "ca")))
        process = subprocess.Popen([BINARY, "serve", "--port", "0", "--port-file", port_file, "--stubs", stubs] + list(arguments),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
        try:
            deadline = time.time() + timeout
            url = None
            while True:
                assert process.poll() is None, "understudy exited before it was ready"
                assert time.time() < deadline, "understudy was not ready in time"
                if url is None and os.path.exists(port_file):
                    url = "http://127.0.0.1:%s" % open(port_file).read().strip()
                if url is not None:
                    try:
                        with urllib.request.urlopen(url + "/__admin/health") as health:
                            if health.status == 200:
                                break
                    except OSError:
                        pass
                time.sleep(0.05)
            yield url
        finally:
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0


def tunnel(url, authority, timeout=10, scope=None):
    """A CONNECT tunnel to `authority` (host:port) through the server at `url`, as a device opens
    one through its proxy (with `scope`, its proxy credentials' user name): the socket, past the
    server's 200 (checked)."""
    host, port = url.replace("http://", "").split(":")
    connection = socket.create_connection((host, int(port)), timeout=timeout)
    credentials = ""
    if scope:
        credentials = "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(("%s:x" % scope).encode()).decode()
    connection.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (authority, authority, credentials)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        piece = connection.recv(1)
        assert piece, "the server closed the CONNECT: %r" % head
        head += piece
    assert head.startswith(b"HTTP/1.1 200"), head
    return connection


def namespace_with_hosts(hosts_file, probe_name, probe_address):
    """A command prefix that runs its command with `hosts_file` as /etc/hosts (a mount namespace of
    its own), or None where that cannot be made; `probe_name` must resolve to `probe_address` there."""
    if not shutil.which("unshare"):
        return None
    for unshare in (["unshare", "--mount"], ["unshare", "--user", "--map-root-user", "--mount"]):
        probe = subprocess.run(unshare + ["sh", "-c", "mount --bind %s /etc/hosts && getent hosts %s" % (hosts_file, probe_name)],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe_address in probe.stdout:
            return unshare + ["sh", "-c", 'mount --bind %s /etc/hosts && exec "$@"' % hosts_file, "sh"]
    return None
