"""A request's view is found by asking each candidate's predicates, not by calling it and catching the
PredicateMismatch it raises (an HTTPNotFound built and thrown away): the view a method names answers whatever
order Pyramid's scan registered a resource's views in, and a method no view takes is still refused as before."""

import uuid

import pytest
from pyramid.exceptions import PredicateMismatch

from clinicrecords.patients.schemas import PatientCreate


@pytest.fixture
def mismatches(monkeypatch):
    """Every PredicateMismatch the application builds, by its message."""
    made = []
    build = PredicateMismatch.__init__

    def watched(self, *args, **kwargs):
        made.append(args[0] if args else "")
        build(self, *args, **kwargs)

    monkeypatch.setattr(PredicateMismatch, "__init__", watched)
    return made


def test_each_method_finds_its_view_without_a_mismatch(testapp, connected, mismatches):
    patients = f"/v1/clinics/{connected.clinic_id}/patients"
    # The scan registers views by name: the collection's POST first (create_ before list_), the item's GET first
    # (get_ before update_). Without asking predicates first, the GET of the list and the PATCH each paid a mismatch.
    created = _created(testapp, connected)
    assert testapp.get(patients, headers=connected.headers).json["data"]
    item = f"{patients}/{created['id']}"
    assert testapp.get(item, headers=connected.headers).json["data"]["id"] == created["id"]
    changed = testapp.patch_json(item, {"phone": "+1 555 0111"}, headers=connected.headers).json["data"]
    assert changed["phone"] == "+1 555 0111"
    assert mismatches == []


def test_a_method_no_view_of_the_record_takes_is_still_405(testapp, connected):
    item = f"/v1/clinics/{connected.clinic_id}/patients/{_created(testapp, connected)['id']}"
    response = testapp.request(item, method="PUT", headers=connected.headers, status=405)
    assert (response.json["code"], response.headers["Allow"]) == ("method_not_allowed", "GET, PATCH")


def _created(testapp, connected):
    return testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", PatientCreate.EXAMPLE,
                             headers={**connected.headers, "Idempotency-Key": str(uuid.uuid4())},
                             status=201).json["data"]
