"""What the browser tests share: headless Chromium, as the iPhone hybrid app's web view."""
import pytest

from browser_support import chromium_session

IPHONE_HYBRID = ("Mozilla/5.0 (iPhone; CPU iPhone OS 5_0 like Mac OS X) AppleWebKit/534.46 "
                 "(KHTML, like Gecko) Mobile/9A334")


@pytest.fixture(scope="module")
def browser():
    session = chromium_session("--window-size=390,844", "--user-agent=" + IPHONE_HYBRID)
    yield session
    session.quit()
