"""GET / on the API's host: a browser is sent on to the developer portal and the API reference; anything else
still gets the API's 404 (the API lives under /v1)."""

import webtest
from selenium.webdriver.common.by import By

from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"}


def test_a_browser_at_the_root_is_shown_the_portal_and_the_reference_and_both_answer(testapp):
    page = testapp.get("/", headers=BROWSER, status=200)
    assert page.content_type == "text/html" and "script-src" not in page.headers["Content-Security-Policy"]
    links = {link.text: link["href"] for link in page.html.find_all("a")}
    assert links == {"Developer portal": "http://localhost/portal/", "API reference": "http://localhost/v1/docs"}
    assert "Sign up" in testapp.get("/portal/login", headers=BROWSER, status=200).text
    testapp.get("/v1/docs", headers=BROWSER, status=200)


def test_the_root_links_to_the_portal_on_its_own_host_when_it_has_one(make_app):
    api = webtest.TestApp(make_app(**{"portal.host": "developers.example.org", "api.base_url":
                                      "https://api.example.org"}), extra_environ={"HTTP_HOST": "api.example.org"})
    links = {link.text: link["href"] for link in api.get("/", headers=BROWSER, status=200).html.find_all("a")}
    assert links == {"Developer portal": "https://developers.example.org/",
                     "API reference": "https://api.example.org/v1/docs"}
    # On the portal's own host, / is the portal's: an anonymous browser is led to log in.
    portal = webtest.TestApp(api.app, extra_environ={"HTTP_HOST": "developers.example.org"})
    home = portal.get("/", headers=BROWSER)
    assert home.status_int in (302, 303) and "/login" in home.headers["Location"]


def test_a_client_that_does_not_ask_for_html_still_gets_the_apis_404(testapp):
    for accept in ({}, {"Accept": "application/json"}, {"Accept": "*/*"}):
        answer = testapp.get("/", headers=accept, status=404)
        assert answer.content_type == "application/problem+json" and answer.json["code"] == "not_found"


def test_in_a_real_browser_the_root_leads_to_the_portal_and_the_reference(served, chrome, tmp_path):  # noqa: F811
    visit = Visit(chrome, tmp_path)
    chrome.get(f"{served}/")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Clinic Records API"
    visit.shot("front-door")  # nothing scrolls sideways at 1280 or 375 px
    visit.follow("Developer portal")
    assert chrome.current_url.startswith(f"{served}/portal/login")
    visit.back()
    visit.follow("API reference")
    assert chrome.current_url == f"{served}/v1/docs" and chrome.title == "Clinic Records API reference"
    assert visit.saved() == 1
