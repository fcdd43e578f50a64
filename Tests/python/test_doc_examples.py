"""The docs' examples run as printed, so none can go stale: every shell block (```sh) of the README and
docs/, and the geocoder's Python clients, against a fresh server serving a copy of stubs/ (its port
put where the example says 8080; `make run`, which would start one, left out). A block runs whole in
bash, in order with the file's other blocks; each curl in it must answer below 400. A block that
cannot run offline is listed in SKIPPED with why, and a listed block that no longer exists fails the
test, so the list cannot go stale either."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from understudy_server import BINARY, ROOT, serve

# (file, the block's first line) -> why it is not run.
SKIPPED = {
    ("README.md", "make run     # build (release) and serve ./stubs on http://127.0.0.1:8080"): "builds and serves: what the suite itself does",
    ("README.md", "understudy serve [--port 8080] [--bind 127.0.0.1] [--stubs ./stubs] [--threads N]"): "a synopsis of every command",
    ("README.md", "make image          # docker build where a Docker engine runs; else podman/buildah (below)"): "needs a container engine (make test-image)",
    ("docs/contracts.md", "understudy import-openapi petstore.yaml --out stubs/petstore"): "needs the reader's own OpenAPI document",
    ("docs/contracts.md", "understudy serve --openapi api/openapi.yaml --validation soft   # or hard"): "needs the reader's own OpenAPI document",
    ("docs/contracts.md", "understudy record --target https://api.example.com --out stubs/recorded/staging --openapi api/openapi.yaml"): "records a real backend",
    ("docs/contracts.md", "understudy check-contract --openapi api/openapi.yaml session.har"): "needs the reader's own document and HAR",
    ("docs/device-mode.md", "make run BIND=0.0.0.0          # or: understudy serve --bind 0.0.0.0 --stubs ./stubs"): "listens beyond loopback",
    ("docs/performance-machinery.md", "rm -f .build/release/understudy"): "a release build without jemalloc (minutes)",
    # The recording walk-through: two servers in two terminals on fixed ports (RecordCommandTests runs that flow).
    ("docs/recording.md", '# terminal 1: the "real" backend, the geocoder emulator on :8080'): "two long-running servers in two terminals",
    ("docs/recording.md", "curl 'http://127.0.0.1:8081/maps/api/geocode/json?address=10001&key=AIzaSy-my-real-key'"): "goes through the recorder above",
    ("docs/recording.md", ".build/release/understudy serve --replay-only"): "replays the recording above",
    ("docs/recording.md", "understudy record (--target URL [--target /prefix=URL …] | --proxy [--ca-dir DIR]) --out DIR"): "a synopsis",
    ("docs/recording.md", "understudy import-har capture.har --out stubs/recorded/browser [--match-header NAME …] [--ignore-query NAME …] [--redact NAME …] [--no-scenarios]"): "a synopsis",
    ("docs/team-server.md", "openssl rand -hex 32 | tr -d '\\n' > deploy/admin-token.txt"): "needs a Kubernetes cluster",
}

# The Python blocks that are whole programs (the others are fragments: a conftest.py).
PYTHON_DOCS = ["docs/geocoder.md"]

# curl as the examples use it, failing on an answer of 400 or more (unless it says how to fail).
CURL = """curl() {
  case " $* " in
    *" -f"* | *" --fail"*) command curl "$@" ;;
    *) command curl -sS --fail-with-body "$@" ;;
  esac
}
set -e -o pipefail
"""


def blocks(path):
    """(language, first line, text) of each fenced block of the file."""
    text = open(os.path.join(ROOT, path)).read()
    for match in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.M | re.S):
        body = match.group(2)
        yield match.group(1), (body.splitlines() or [""])[0].rstrip(), body


def documents():
    return ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def examples():
    for path in documents():
        runnable = []
        for language, first, body in blocks(path):
            if (path, first) in SKIPPED:
                continue
            if language == "sh" or (language == "python" and path in PYTHON_DOCS):
                runnable.append((language, first, body))
        if runnable:
            yield path, runnable


def test_every_skipped_block_still_exists():
    present = {(path, first) for path in documents() for _, first, _ in blocks(path)}
    assert not set(SKIPPED) - present, "listed in SKIPPED but not in the docs: %s" % sorted(set(SKIPPED) - present)


def as_run_here(body, port):
    """The example with this server's port, without `make run` (the server runs already)."""
    body = re.sub(r"^make run\b.*$", "", body, flags=re.M)
    return re.sub(r"\b(127\.0\.0\.1|localhost):8080\b", r"\g<1>:%d" % port, body)


@pytest.mark.parametrize("path,runnable", list(examples()), ids=[path for path, _ in examples()])
def test_the_examples_run_as_printed(path, runnable):
    binaries = os.path.dirname(BINARY)
    with tempfile.TemporaryDirectory(prefix="understudy-docs-") as work:
        stubs = os.path.join(work, "stubs")
        shutil.copytree(os.path.join(ROOT, "stubs"), stubs)
        with serve(stubs, "--no-watch") as url:
            port = int(url.rsplit(":", 1)[1])
            environment = dict(os.environ, PATH=binaries + os.pathsep + os.environ["PATH"])
            for language, first, body in runnable:
                script = as_run_here(body, port)
                if language == "sh":
                    command = ["bash", "-c", CURL + script]
                else:
                    command = [sys.executable, "-c", script]
                done = subprocess.run(command, cwd=work, env=environment, capture_output=True, text=True, timeout=120)
                assert done.returncode == 0, "%s, the block '%s' failed (%d):\n%s\n%s" % (
                    path, first, done.returncode, done.stdout[-3000:], done.stderr[-3000:])
