"""One Understudy shared by every pytest-xdist worker, each worker in a state scope of its own.

test_scopes_parallel.py (one folder up) starts the server and runs this folder with `pytest -n 8`,
passing the server's address in UNDERSTUDY_URL; without it these tests are skipped.
"""
import os

import pytest
import requests


@pytest.fixture(scope="session")
def understudy_url():
    url = os.environ.get("UNDERSTUDY_URL")
    if not url:
        pytest.skip("UNDERSTUDY_URL is not set (Tests/python/test_scopes_parallel.py sets it)")
    return url


@pytest.fixture(scope="session")
def understudy(understudy_url, worker_id):
    """A requests.Session whose every request lands in this worker's own state scope."""
    session = requests.Session()
    # worker_id is pytest-xdist's: gw0, gw1, … ("master" without -n). One scope per worker keeps
    # the workers' carts, SQL rows, posts, stubs, scenarios and journal apart on one server.
    session.headers["X-Understudy-Scope"] = "ci-" + worker_id
    # Start from the fixtures even if an earlier run against the same server used this scope.
    session.post(understudy_url + "/__admin/reset", timeout=10).raise_for_status()
    yield session
    session.close()
