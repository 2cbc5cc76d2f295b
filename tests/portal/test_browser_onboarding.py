"""Domain verification, the business profile and the request log in a real browser (Debian's chromium through
selenium, headless). The served application asks a real authoritative DNS server on 127.0.0.1: the browser
enters the domain, the test publishes the TXT host and value read from the page, the browser presses "Check
now" and sees "verified". Every page is saved as a screenshot (docs/portal.md describes them)."""

import urllib.error
import urllib.request
import uuid

import pytest
from selenium.webdriver.common.by import By

from clinicrecords.onboarding.interfaces import IBusinessProfile
from tests.common.serving import serving
from tests.onboarding.dns_server import authoritative_server
from tests.onboarding.helpers import unique_domain
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)


@pytest.fixture
def dns_served(make_app):
    """(zone, base URL, app): the application served on 127.0.0.1, its lookups going to the zone's server."""
    with authoritative_server() as (zone, address):
        app = make_app(**{"verification.nameservers": address})
        with serving(app) as url:
            yield zone, url, app


def _call(url, secret):
    """The status of a server-side API call with the key."""
    try:
        call = urllib.request.Request(url, headers={"Authorization": f"Bearer {secret}"})
        with urllib.request.urlopen(call, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def _text(driver, element_id):
    return driver.find_element(By.ID, element_id).text.strip()


# Its own waitress server (dns_served) reaches the database from its threads.
@pytest.mark.commits
def test_an_owner_verifies_the_domain_submits_the_profile_reads_the_log(dns_served, chrome, tmp_path, world):
    zone, served, app = dns_served
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    visit.new_workspace(served, "owner")
    workspace_id = uuid.UUID(chrome.current_url.split("/workspaces/")[1].split("/")[0].split("?")[0])

    visit.follow("Domain")
    visit.shot("domain-empty")
    domain = unique_domain()
    visit.fill(domain=domain)
    visit.press("Show the record to publish")
    assert _text(chrome, "state") == "PENDING"  # the tag's style is upper case
    host, value = _text(chrome, "txt-host"), _text(chrome, "txt-value")
    assert host == f"_clinicrecords-verify.{domain}" and value.startswith("clinicrecords-verify=")
    visit.shot("domain-pending")

    zone.publish(host, value)  # what the owner does at the DNS provider
    visit.press("Check now")
    assert _text(chrome, "state") == "VERIFIED" and "The record was found" in _text(chrome, "checked")
    visit.shot("domain-verified")

    visit.follow("Change the domain")
    visit.fill(domain=unique_domain())
    visit.press("Continue")
    assert "Your workspace stops being verified at once" in chrome.page_source
    visit.shot("domain-change-confirm")
    visit.follow(f"Keep {domain}")
    assert _text(chrome, "state") == "VERIFIED"

    visit.follow("Profile")
    visit.fill(legal_name="Acme Health Ltd", website="https://acme.example", country="XX",
               contact_email="dev@acme.example", intended_use="Reminders for our partner clinics.")
    visit.press("Submit for review")
    assert "Country must be an ISO 3166-1 alpha-2 country code" in _text(chrome, "country-error")
    visit.shot("profile-errors")
    visit.fill(country="GB")
    visit.press("Submit for review")
    assert _text(chrome, "profile-status") == "SUBMITTED"
    with world.request() as request:  # the operator's review (`workspace profile review --reject`)
        request.find_service(IBusinessProfile).review(workspace_id, approve=False,
                                                      reason="The website does not name Acme Health Ltd.")
    chrome.refresh()
    assert _text(chrome, "review-reason") == "The website does not name Acme Health Ltd."
    visit.shot("profile-rejected")

    visit.follow("API keys")
    visit.follow("Create a key")
    visit.press("Create key")
    secret = _text(chrome, "secret")
    # A clinic's record path is the log's longest kind: the table must still fit a laptop's width.
    record_path = f"/v1/clinics/{uuid.uuid4()}/allergies/{uuid.uuid4()}"
    for path, status in (("/v1/me", 200), ("/v1/me?page_note=private", 400), ("/v1/connections", 200),
                         (record_path, 403)):
        assert _call(f"{served}{path}", secret) == status
    assert app.registry["request_log.writer"].flush(timeout=10)
    visit.follow("I have copied it: back to keys")
    visit.follow("Requests")
    rows = chrome.find_elements(By.CSS_SELECTOR, "#requests tbody tr")
    paths = [row.find_elements(By.TAG_NAME, "td")[4].text for row in rows]  # after the key and the clinic
    assert paths == [record_path, "/v1/connections", "/v1/me", "/v1/me"]
    assert "private" not in chrome.page_source and secret not in chrome.page_source
    visit.shot("requests")
    print(f"screenshots: {folder}")
    assert visit.saved() == 7
