"""What the browser tests share: headless Chromium, as the iPhone hybrid app's web view."""
import shutil

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

IPHONE_HYBRID = ("Mozilla/5.0 (iPhone; CPU iPhone OS 5_0 like Mac OS X) AppleWebKit/534.46 "
                 "(KHTML, like Gecko) Mobile/9A334")


def chromium_session(*arguments):
    """Headless Chromium with `arguments` besides the usual ones; its console kept, for tests that
    want a page without errors."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.fail("chromium and chromedriver are needed (make test installs Debian's chromium and chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", *arguments]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    session.set_page_load_timeout(30)
    return session


@pytest.fixture(scope="module")
def browser():
    session = chromium_session("--window-size=390,844", "--user-agent=" + IPHONE_HYBRID)
    yield session
    session.quit()
