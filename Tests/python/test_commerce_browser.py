"""The Madisons storefront in a real browser: headless Chromium with the iPhone hybrid app's
User-Agent shops from the home page to order history. The test plays the native shell: where a
page offers a madisons:// link it reads the link and calls the JavaScript callback it names,
as the app's WebViewController does. Screenshots go to .build/commerce-screenshots/."""
import os
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from browser_support import replaced
from understudy_server import ROOT, serve

SCREENSHOTS = os.path.join(ROOT, ".build", "commerce-screenshots")
SERVLET = "/webapp/wcs/stores/servlet/"


@pytest.fixture(scope="module")
def base():
    """The shipped stubs (storefront and geocoder) on a free port."""
    with serve(os.path.join(ROOT, "stubs")) as url:
        yield url


def shot(browser, name):
    os.makedirs(SCREENSHOTS, exist_ok=True)
    browser.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))


def navigate(browser, action):
    """Runs `action` (a click, a callback) and waits until the page it leads to has replaced this one."""
    old = browser.find_element(By.TAG_NAME, "html")
    action()
    WebDriverWait(browser, 15).until(replaced(old))


def click(browser, by, value):
    navigate(browser, browser.find_element(by, value).click)


def text(browser, element_id):
    return browser.find_element(By.ID, element_id).text.strip()


def call_bridge(browser, link_id, *arguments, navigates=False):
    """What the native shell does with a madisons:// link: run the callback after '#'."""
    href = browser.find_element(By.ID, link_id).get_attribute("href")
    assert href.startswith("madisons://localhost/"), href
    callback = href.split("#", 1)[1]
    run = lambda: browser.execute_script("window[arguments[0]].apply(window, arguments[1])", callback, list(arguments))
    if navigates:
        navigate(browser, run)
    else:
        run()
    return href


def test_shopping_flow_in_a_real_browser(base, browser):
    store = base + SERVLET
    query = "storeId=10152&catalogId=10051&langId=-1"

    # Home → department → category → product.
    browser.get(store + "StoreView?" + query)
    assert browser.title == "Home | Madisons"
    assert "iPhoneHybrid" in browser.find_element(By.TAG_NAME, "body").get_attribute("class")
    shot(browser, "01-home")
    click(browser, By.LINK_TEXT, "Apparel")
    click(browser, By.LINK_TEXT, "Dresses")
    click(browser, By.PARTIAL_LINK_TEXT, "Silk Wrap Dress")
    assert text(browser, "offerPrice") == "$29.99"
    Select(browser.find_element(By.NAME, "attrValue_Color")).select_by_index(1)
    Select(browser.find_element(By.NAME, "attrValue_Size")).select_by_visible_text("M")
    quantity = browser.find_element(By.ID, "quantity")
    quantity.clear()
    quantity.send_keys("2")
    shot(browser, "02-product")
    click(browser, By.ID, "addToCart")

    # The cart and its total.
    assert SERVLET + "mOrderItemDisplay" in browser.current_url
    assert text(browser, "subtotal") == "$59.98"
    shot(browser, "03-cart")

    # Sign in: the guest's cart is kept.
    browser.get(store + "MobileLogonForm?" + query)
    browser.find_element(By.ID, "logonId").send_keys("jane.doe@example.com")
    browser.find_element(By.ID, "logonPassword").send_keys("passw0rd")
    click(browser, By.ID, "logonButton")
    assert text(browser, "welcome") == "Welcome, Jane Doe"
    assert browser.get_cookie("WC_AUTHENTICATION_2001") is not None

    # Address book: the contact picker fills the form through the bridge.
    click(browser, By.ID, "addressBookLink")
    click(browser, By.ID, "addAddress")
    call_bridge(browser, "chooseContact", {"firstName": "Jane", "lastName": "Doe", "address1": "1 Infinite Loop",
                                           "city": "Cupertino", "state": "CA", "zipCode": "95014",
                                           "phone": "408-555-0100", "email": "jane.doe@example.com"})
    assert browser.find_element(By.ID, "city").get_attribute("value") == "Cupertino"
    browser.find_element(By.ID, "nickName").send_keys("Office")
    click(browser, By.ID, "saveAddress")
    assert "Cupertino, CA 95014" in browser.find_element(By.ID, "addresses").text

    # Wish list, e-mailed with the native e-mail picker.
    browser.get(store + "mProductDisplayView?" + query + "&productId=12601")
    click(browser, By.ID, "addToWishList")
    click(browser, By.ID, "emailWishList")
    href = call_bridge(browser, "recipientPicker", "friend@example.com")
    assert href == "madisons://localhost/EmailPicker#setRecipientEmail"
    assert browser.find_element(By.ID, "recipient").get_attribute("value") == "friend@example.com"
    shot(browser, "04-email-wish-list")
    click(browser, By.ID, "sendWishList")
    assert text(browser, "wishListSent") == "Your wish list was sent to friend@example.com."

    # Store locator by ZIP code (placed by the geocoder), then by the device's location.
    browser.get(store + "mStoreLocatorView?" + query)
    browser.find_element(By.ID, "zipOrCity").send_keys("10018")
    click(browser, By.ID, "findStores")
    first_store = browser.find_elements(By.CSS_SELECTOR, "#stores li a")[0].text
    assert first_store == "Madisons New York"
    shot(browser, "05-store-locator")
    browser.get(store + "mStoreLocatorView?" + query)
    call_bridge(browser, "currentLocation", 47.61, -122.33, navigates=True)
    assert browser.find_elements(By.CSS_SELECTOR, "#stores li a")[0].text == "Madisons Seattle"

    # Checkout: address, summary, order.
    browser.get(store + "mOrderItemDisplay?" + query)
    click(browser, By.ID, "checkout")
    click(browser, By.ID, "continueCheckout")
    assert text(browser, "grandTotal") == "$74.13"  # $59.98 + $9.95 shipping + $4.20 tax (7%)
    click(browser, By.ID, "placeOrder")
    order = text(browser, "orderNumber")
    assert re.fullmatch(r"\d+", order)
    shot(browser, "06-order-confirmation")

    # Order history lists it.
    browser.get(store + "mOrderHistory?" + query)
    assert browser.find_element(By.CSS_SELECTOR, "tr[data-order-id='%s']" % order)
    shot(browser, "07-order-history")
