"""The real WireMock 2.35.1: the standalone jar that the `wiremock` PyPI package ships, run on Java,
as the oracle of the differential tests."""
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import wiremock

JAR = os.path.join(os.path.dirname(wiremock.__file__), "server", "wiremock-standalone-2.35.1.jar")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def wiremock_server(root, timeout=60):
    """Yields the base URL of a WireMock serving `root` (its mappings/ and __files/)."""
    java = shutil.which("java")
    assert java, "the differential tests need a Java runtime (tools/install-deps.sh python installs one)"
    with tempfile.TemporaryFile() as log:
        port = free_port()
        process = subprocess.Popen([java, "-jar", JAR, "--port", str(port), "--bind-address", "127.0.0.1",
                                    "--root-dir", root, "--disable-banner", "--local-response-templating"],
                                   stdout=log, stderr=subprocess.STDOUT)
        url = "http://127.0.0.1:%d" % port
        try:
            deadline = time.time() + timeout
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    raise AssertionError("WireMock exited: " + log.read().decode(errors="replace")[-2000:])
                assert time.time() < deadline, "WireMock was not ready in time"
                try:
                    urllib.request.urlopen(url + "/__admin/mappings?limit=1")
                    break
                except (OSError, urllib.error.HTTPError):
                    time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)
