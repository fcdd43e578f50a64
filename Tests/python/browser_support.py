"""What the browser tests share beyond the fixture: headless Chromium, and waiting for a page to be
replaced."""
import shutil

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service


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


def replaced(element):
    """A wait condition, like staleness_of: the page `element` belongs to has been replaced. Chromium
    may also answer a question about a node of the page going away with "Node with given id does
    not belong to the document": that node is gone too."""
    def gone(_):
        try:
            element.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                return True
            raise
    return gone
