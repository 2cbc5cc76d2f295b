"""The clinic console in a real browser (Debian chromium, headless, selenium) against a real waitress server
on 127.0.0.1: an operator's link makes an admin, who creates the clinic's key, grants an organization two of
the three permissions it asked for (its key reads one, gets 403 scope_missing on the third, and 404 after a
revoke), invites a clinician and reads a patient's access report; a submission sent through the API appears
in the clinician's queue, the clinician accepts it, and the sender's GET of the submission reads confirmed.
Every console page is saved as a screenshot (docs/portal.md)."""

import json
import re
import urllib.error
import urllib.request
import uuid

from selenium.webdriver.common.by import By

from clinicrecords.clinical.terminology import icd10
from tests.common.cli import ok
from tests.portal.helpers import PASSWORD, unique_email, with_workspace
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)


def _api(served, connected, method, path, body=None):
    """Server to server, as the partner's backend calls the API."""
    headers = {**connected.headers, "Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4())}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{served}/v1/clinics/{connected.clinic_id}/{path}", method=method,
                                     data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["data"]


def _status(served, key, clinic_id, path):
    request = urllib.request.Request(f"{served}/v1/clinics/{clinic_id}/{path}",
                                     headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, None
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read()).get("code")


def test_a_clinician_accepts_a_submission_sent_through_the_api(app, served, chrome, tmp_path,  # noqa: F811
                                                               world):
    folder = tmp_path / "screenshots"
    folder.mkdir()
    print(f"\nscreenshots: {folder}")
    visit = Visit(chrome, folder)
    # The first ICD-10 lookup loads the code set (about 10 s of CPU, a minute on a loaded machine): loaded
    # here, in the server's process, so the condition sent below is not timed out by the API call's 30 s.
    assert icd10("I10") == "I10"
    connected = world.connected()
    ok("clinic", "set", str(connected.clinic_id), "--timezone", "Europe/Berlin")  # the console's times are its
    patient = _api(served, connected, "POST", "patients",
                   {"given_name": "Ada", "family_name": "Quill", "birth_date": "1984-03-02"})
    _api(served, connected, "GET", f"patients/{patient['id']}")

    link = ok("clinic", "staff", "add", "--clinic", connected.clinic_id, "--email", unique_email("admin"),
              "--role", "admin")["set_password_url"]
    chrome.get(served + re.sub(r"^https?://[^/]+", "", link))
    visit.fill(password="short")
    visit.press("Set password and join")
    assert "12" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("console-join-errors")
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")
    assert "You have joined the staff of" in chrome.page_source
    visit.shot("console-overview-admin")

    visit.follow("API keys")
    visit.shot("console-keys-empty")
    visit.press("Create a live key")
    own_key = chrome.find_element(By.ID, "secret").text.strip()
    assert own_key.startswith("ehr_live_")
    visit.shot("console-key-created")
    visit.follow("I have copied it: back to keys")
    assert own_key not in chrome.page_source
    visit.shot("console-keys")
    visit.follow("Automatic acceptance")
    visit.shot("console-auto-accept")

    # An organization asks in the developer portal (WebTest: the developer's own browser); the admin grants
    # two of three permissions, its key reads one and is refused the third; after a revoke the clinic is 404.
    developer, workspace_id = with_workspace(app, name="Beacon Labs")
    world.set_workspace(uuid.UUID(workspace_id), verified=True, paid=True, terms_accepted=True)
    org_key = world.key(workspace_id=uuid.UUID(workspace_id), mode="live")
    form = developer.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
    form["clinic_id"] = str(connected.clinic_id)
    for field in form.fields["scopes"]:
        field.checked = field._value in ("patients:read", "allergies:read", "conditions:read")
    form.submit(status=303)
    visit.follow("Connections")
    visit.shot("console-connections-request")
    visit.follow("Review the request")
    visit.shot("console-connection-decide")
    chrome.find_element(By.XPATH, "//input[@value='conditions:read']").click()
    visit.press("Grant the ticked permissions")
    assert "Connection granted" in chrome.page_source
    visit.shot("console-connections")
    assert _status(served, org_key, connected.clinic_id, "patients") == (200, None)
    assert _status(served, org_key, connected.clinic_id, "conditions") == (403, "scope_missing")
    chrome.get(f"{served}/portal/clinics/{connected.clinic_id}/connections/{workspace_id}")
    visit.shot("console-connection-change")
    visit.press("Revoke the connection of Beacon Labs")
    assert "Connection revoked" in chrome.page_source
    assert _status(served, org_key, connected.clinic_id, "patients")[0] == 404

    visit.follow("Staff")
    nurse = unique_email("nurse")
    visit.fill(email=nurse)
    visit.press("Send invitation")
    invitation = chrome.find_element(By.ID, "invitation-link").text.strip()
    visit.shot("console-staff-invited")
    visit.follow("Who read what")
    visit.set_up_app()  # patient data: staff set up a second factor first, then go on (decision 0086)
    visit.fill(patient="Quill")
    visit.press("Find the patient")
    visit.follow("Ada Quill")
    assert "Test Workspace" in chrome.find_element(By.ID, "accesses").text
    visit.shot("console-access-report")
    visit.follow("Activity")
    activity = chrome.find_element(By.ID, "activity").text
    assert f"Invited {nurse} to the staff as" in activity and "Connected Beacon Labs" in activity
    assert "CET" in activity and "staff.invited" not in activity
    visit.shot("console-activity")
    visit.press("Log out")

    chrome.get(invitation)
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")
    sent = _api(served, connected, "POST", "allergies",
                {"patient_id": patient["id"], "substance": {"text": "Peanut", "rxnorm": "1191"},
                 "criticality": "high"})
    visit.follow("Review queue")
    visit.set_up_app()
    assert f"submission-{sent['submission_id']}" in chrome.page_source and "Ada Quill" in chrome.page_source
    visit.shot("console-queue")
    visit.follow("Decline…")
    visit.press("Decline")
    assert "Enter the reason for declining" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("console-submission-decline-error")
    visit.follow("Back to the queue")
    visit.press("Accept")
    assert "Accepted: the submission for Ada Quill" in chrome.page_source
    visit.shot("console-queue-accepted")
    # Opened again (a tab left open, a link followed later): who decided it and when, not a bare 404.
    chrome.get(f"{served}/portal/clinics/{connected.clinic_id}/queue/{sent['submission_id']}")
    assert "This submission was already accepted" in chrome.find_element(By.ID, "decided").text
    visit.shot("console-submission-decided")
    chrome.get(f"{served}/portal/clinics/{connected.clinic_id}/queue/{uuid.uuid4()}")
    assert "clinic console" in chrome.find_element(By.CLASS_NAME, "brand").text
    visit.shot("console-not-found")
    visit.follow("Go to the clinic console")
    visit.follow("Review queue")
    assert _api(served, connected, "GET",
                f"submissions/{sent['submission_id']}")["review_status"] == "confirmed"

    ok("auto-accept", "set", "--clinic", connected.clinic_id, "--workspace", connected.workspace_id,
       "--kinds", "condition", "--on")
    automatic = _api(served, connected, "POST", "conditions", {"patient_id": patient["id"],
                                                               "icd10_code": "I10"})
    assert automatic["review_status"] == "confirmed"
    chrome.refresh()
    visit.follow("1 automatically accepted item to review")
    visit.shot("console-reviews")
    visit.press("Mark reviewed")
    assert "Marked reviewed" in chrome.page_source
    # Declined with a reason: opened again, the page says why.
    declined = _api(served, connected, "POST", "allergies",
                    {"patient_id": patient["id"], "substance": {"text": "Latex"}, "criticality": "low"})
    chrome.get(f"{served}/portal/clinics/{connected.clinic_id}/queue/{declined['submission_id']}")
    visit.fill(reason="Already on the chart as a latex intolerance")
    visit.press("Decline")
    chrome.get(f"{served}/portal/clinics/{connected.clinic_id}/queue/{declined['submission_id']}")
    assert "The reason given: Already on the chart" in chrome.find_element(By.ID, "decided").text
    visit.shot("console-submission-declined")
    assert visit.saved() == 20
