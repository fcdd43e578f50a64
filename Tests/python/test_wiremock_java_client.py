"""The official WireMock Java client (the 2.35.1 standalone jar the `wiremock` PyPI package ships),
unchanged, against a real Understudy: `Tests/java/WireMockJavaClientCheck.java`, compiled with
javac against that jar, stubs, verifies, reads near misses, moves scenarios, removes and resets,
twice on one server. JVM and Android teams drive WireMock this way from JUnit."""
import os
import shutil
import subprocess
import tempfile

import pytest

from understudy_server import serve
from wiremock_oracle import JAR

SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "java", "WireMockJavaClientCheck.java")


@pytest.fixture(scope="module")
def check_classes():
    javac = shutil.which("javac")
    assert javac, "this test needs a JDK (tools/install-deps.sh python installs one)"
    with tempfile.TemporaryDirectory() as classes:
        subprocess.run([javac, "-d", classes, "-cp", JAR, SOURCE], check=True, capture_output=True, timeout=300)
        yield classes


def test_the_java_client_stubs_verifies_and_resets_twice_on_one_server(check_classes):
    with tempfile.TemporaryDirectory() as stubs:
        with serve(stubs) as base:
            host, port = base[len("http://"):].split(":")
            for attempt in (1, 2):
                run = subprocess.run(["java", "-cp", os.pathsep.join([check_classes, JAR]), "WireMockJavaClientCheck", host, port],
                                     capture_output=True, text=True, timeout=300)
                lines = run.stdout.splitlines()
                assert run.returncode == 0, "pass %d:\n%s\n%s" % (attempt, run.stdout, run.stderr[-3000:])
                assert lines[-1] == "all checks passed"
                assert sum(line.startswith("ok ") for line in lines) == 15, run.stdout
