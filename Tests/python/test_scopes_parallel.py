"""State scopes under parallel load: one Understudy, eight pytest-xdist workers, a scope each.

Starts the server on the shipped stubs and runs Tests/python/scoped/ with `pytest -n 8` against
it; what each worker checks is in scoped/test_worker_scopes.py.
"""
import os
import re
import subprocess
import sys
import tempfile

import requests

from understudy_server import ROOT, serve

WORKERS = 8


def test_eight_workers_in_eight_scopes():
    stubs = os.path.join(ROOT, "stubs")
    with tempfile.TemporaryDirectory() as scratch, serve(stubs) as url:
        # Not this run's xdist variables (when it is itself run with -n): the inner run has its own.
        environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}
        environment.update(UNDERSTUDY_URL=url, UNDERSTUDY_STUBS=stubs, UNDERSTUDY_SCRATCH=scratch)
        run = subprocess.run([sys.executable, "-m", "pytest", "-n", str(WORKERS), "-p", "no:cacheprovider", "-q",
                              os.path.join("Tests", "python", "scoped")],
                             cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=120)
        assert run.returncode == 0, run.stdout
        # Every worker ran (none skipped), and the server holds one scope per worker.
        assert re.search(r"\b%d passed\b" % WORKERS, run.stdout) and "skipped" not in run.stdout, run.stdout
        scopes = {s["name"]: s for s in requests.get(url + "/__admin/scopes", timeout=10).json()["scopes"]}
        assert {"ci-gw%d" % n for n in range(WORKERS)} <= scopes.keys(), sorted(scopes)
