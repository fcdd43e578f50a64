"""What the browser tests share beyond the fixture: waiting for a page to be replaced."""
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException


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
