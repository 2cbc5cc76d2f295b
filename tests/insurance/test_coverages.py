import pytest

from clinicrecords.insurance.schemas import (
    SANDBOX_COVERAGE_IDS,
    SANDBOX_PAYER_IDS,
    CoverageCreate,
    CoverageUpdate,
)
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.insurance.helpers import admin, restrict, sandbox_caller


@pytest.fixture
def caller(world):
    return sandbox_caller(world)


def _create(testapp, caller, status=201, **overrides):
    body = {k: v for k, v in dict(CoverageCreate.EXAMPLE, **overrides).items() if v is not None}
    return testapp.post_json(caller.url("coverages"), body, headers=caller.write_headers(), status=status)


def test_create_is_unconfirmed_and_inactive(testapp, caller):
    response = _create(testapp, caller)
    created = response.json["data"]
    assert created["confirmation_status"] == "unconfirmed" and created["coverage_active"] is False
    assert created["patient_id"] == CoverageCreate.EXAMPLE["patient_id"]
    assert created["subscriber"] == {"relationship": "self", "name": None, "birth_date": None}
    assert created["period"] == {"start": "2025-01-01", "end": "2025-12-31"}
    assert response.headers["Location"].endswith(f"/coverages/{created['id']}")
    assert testapp.get(caller.url(f"coverages/{created['id']}"), headers=caller.headers).json["data"] == created


def test_create_needs_an_idempotency_key(testapp, caller):
    response = testapp.post_json(caller.url("coverages"), CoverageCreate.EXAMPLE, headers=caller.headers, status=400)
    assert "Idempotency-Key" in response.json["detail"]


def test_coverage_exists_names_the_existing_coverage_when_the_patient_is_visible(testapp, caller):
    first = _create(testapp, caller).json["data"]
    response = _create(testapp, caller, status=409, member_id="OTHER-1")
    assert response.json["code"] == "coverage_exists"
    assert first["id"] in response.json["detail"]


def test_coverage_exists_hides_the_id_for_a_restricted_patient(world, testapp, caller):
    restrict(world, caller.clinic_id, SANDBOX_PATIENT_IDS[0])
    response = _create(testapp, caller, status=409, patient_id=str(SANDBOX_PATIENT_IDS[0]),
                       payer_id=str(SANDBOX_PAYER_IDS[0]))
    assert response.json["code"] == "coverage_exists"
    assert str(SANDBOX_COVERAGE_IDS[0]) not in response.json["detail"]
    # ... and that coverage is not readable either.
    testapp.get(caller.url(f"coverages/{SANDBOX_COVERAGE_IDS[0]}"), headers=caller.headers, status=404)
    listed = testapp.get(caller.url("coverages"), headers=caller.headers).json["data"]
    assert str(SANDBOX_COVERAGE_IDS[0]) not in [c["id"] for c in listed]


def test_coverage_exists_hides_the_id_from_a_key_that_cannot_read_patients(world, testapp):
    caller = sandbox_caller(world, scopes={"coverage:read", "coverage:write"})
    response = _create(testapp, caller, status=409, patient_id=str(SANDBOX_PATIENT_IDS[0]),
                       payer_id=str(SANDBOX_PAYER_IDS[0]))
    assert response.json["code"] == "coverage_exists"
    assert str(SANDBOX_COVERAGE_IDS[0]) not in response.json["detail"]


def test_payer_not_enabled(testapp, caller):
    response = _create(testapp, caller, status=409, payer_id=str(SANDBOX_PAYER_IDS[3]))
    assert response.json["code"] == "payer_not_enabled"


def test_activation_requires_staff(testapp, caller):
    response = _create(testapp, caller, status=409, coverage_active=True)
    assert response.json["code"] == "activation_requires_staff"
    assert _create(testapp, caller, coverage_active=False).json["data"]["coverage_active"] is False


@pytest.mark.parametrize("overrides, pointer", [
    ({"payer_id": str(SANDBOX_COVERAGE_IDS[0])}, "/payer_id"),
    ({"patient_id": str(SANDBOX_PAYER_IDS[0])}, "/patient_id"),
    ({"member_id": ""}, "/member_id"),
    ({"subscriber": {"relationship": "cousin"}}, "/subscriber/relationship"),
    ({"subscriber": {"relationship": "self", "ssn": "1"}}, "/subscriber/ssn"),
    ({"period": {"start": "2025-02-30"}}, "/period/start"),
    ({"coverage_active": "yes"}, "/coverage_active"),
    ({"price": 1}, "/price"),
])
def test_invalid_bodies_point_at_the_field(testapp, caller, overrides, pointer):
    response = _create(testapp, caller, status=400, **overrides)
    assert response.json["code"] == "invalid_request"
    assert [e["pointer"] for e in response.json["errors"]] == [pointer]


def _coverage_url(caller, coverage_id=SANDBOX_COVERAGE_IDS[0]):
    return caller.url(f"coverages/{coverage_id}")


def test_patch_example_and_non_identifying_changes_keep_a_confirmed_coverage_confirmed(testapp, caller):
    updated = testapp.patch_json(_coverage_url(caller), CoverageUpdate.EXAMPLE, headers=caller.headers).json["data"]
    assert updated["group_number"] == "GRP-1002"
    assert (updated["confirmation_status"], updated["coverage_active"]) == ("confirmed", True)


@pytest.mark.parametrize("change", [
    {"member_id": "NWH-100-9999"},
    {"subscriber": {"relationship": "spouse", "name": "Bram Holloway"}},
    {"payer_id": str(SANDBOX_PAYER_IDS[1])},
])
def test_changing_payer_member_or_subscriber_returns_a_confirmed_coverage_to_unconfirmed(testapp, caller, change):
    updated = testapp.patch_json(_coverage_url(caller), change, headers=caller.headers).json["data"]
    assert (updated["confirmation_status"], updated["coverage_active"]) == ("unconfirmed", False)


def test_sending_the_same_identifying_values_changes_nothing(testapp, caller):
    same = {"member_id": "NWH-100-2231", "subscriber": {"relationship": "self"}}
    updated = testapp.patch_json(_coverage_url(caller), same, headers=caller.headers).json["data"]
    assert updated["confirmation_status"] == "confirmed"


def test_patch_refusals(testapp, caller):
    url = _coverage_url(caller)
    assert testapp.patch_json(url, {"coverage_active": False}, headers=caller.headers,
                              status=409).json["code"] == "activation_requires_staff"
    assert testapp.patch_json(url, {"payer_id": str(SANDBOX_PAYER_IDS[3])}, headers=caller.headers,
                              status=409).json["code"] == "payer_not_enabled"
    # Patient 1 already has Northwind; moving patient 3's coverage (Bluegate) is fine, but not onto a duplicate.
    other = _create(testapp, caller, patient_id=str(SANDBOX_PATIENT_IDS[0]), payer_id=str(SANDBOX_PAYER_IDS[1]))
    response = testapp.patch_json(_coverage_url(caller, other.json["data"]["id"]),
                                  {"payer_id": str(SANDBOX_PAYER_IDS[0])}, headers=caller.headers, status=409)
    assert response.json["code"] == "coverage_exists" and str(SANDBOX_COVERAGE_IDS[0]) in response.json["detail"]
    unconfirmed = _coverage_url(caller, SANDBOX_COVERAGE_IDS[1])
    assert testapp.patch_json(unconfirmed, {"coverage_active": True}, headers=caller.headers,
                              status=409).json["code"] == "activation_requires_staff"


def test_coverage_active_true_is_refused_even_when_already_active(testapp, caller):
    url = _coverage_url(caller)  # confirmed and active in the seed
    before = testapp.get(url, headers=caller.headers).json["data"]
    response = testapp.patch_json(url, {"coverage_active": True, "group_number": "GRP-9"}, headers=caller.headers,
                                  status=409)
    assert response.json["code"] == "activation_requires_staff"
    assert testapp.get(url, headers=caller.headers).json["data"] == before
    # `false` on an inactive coverage changes nothing and is accepted.
    unconfirmed = _coverage_url(caller, SANDBOX_COVERAGE_IDS[1])
    assert testapp.patch_json(unconfirmed, {"coverage_active": False},
                              headers=caller.headers).json["data"]["coverage_active"] is False


def test_list_filters_and_fhir(testapp, caller):
    listed = testapp.get(caller.url("coverages"), {"patient_id": str(SANDBOX_PATIENT_IDS[2])},
                         headers=caller.headers).json["data"]
    assert [c["id"] for c in listed] == [str(SANDBOX_COVERAGE_IDS[1])]
    fhir = {**caller.headers, "Accept": "application/fhir+json"}
    one = testapp.get(_coverage_url(caller), headers=fhir).json
    assert one["resourceType"] == "Coverage" and one["status"] == "active"
    assert one["beneficiary"] == {"reference": f"Patient/{SANDBOX_PATIENT_IDS[0]}"}
    assert one["payor"] == [{"reference": f"Organization/{SANDBOX_PAYER_IDS[0]}"}]
    assert one["subscriberId"] == "NWH-100-2231"
    bundle = testapp.get(caller.url("coverages"), headers=fhir).json
    assert bundle["resourceType"] == "Bundle" and bundle["type"] == "searchset"
    statuses = {e["resource"]["id"]: e["resource"]["status"] for e in bundle["entry"]}
    assert statuses == {str(SANDBOX_COVERAGE_IDS[0]): "active", str(SANDBOX_COVERAGE_IDS[1]): "draft",
                        str(SANDBOX_COVERAGE_IDS[2]): "active"}


def test_writes_need_coverage_write(world, testapp):
    caller = sandbox_caller(world, scopes={"coverage:read"})
    response = _create(testapp, caller, status=403)
    assert response.json["code"] == "scope_missing" and "coverage:write" in response.json["detail"]


def test_staff_confirm_then_activate(world, testapp, caller):
    created = _create(testapp, caller).json["data"]
    status, _, error = admin("coverage", "activate", "--clinic", caller.clinic_id, created["id"])
    assert status == 2 and "confirm" in error
    assert admin("coverage", "confirm", "--clinic", caller.clinic_id, created["id"])[1]["confirmation_status"] \
        == "confirmed"
    assert admin("coverage", "activate", "--clinic", caller.clinic_id, created["id"])[1]["coverage_active"] is True
    read = testapp.get(caller.url(f"coverages/{created['id']}"), headers=caller.headers).json["data"]
    assert (read["confirmation_status"], read["coverage_active"]) == ("confirmed", True)
    assert admin("coverage", "confirm", "--clinic", caller.clinic_id, SANDBOX_PAYER_IDS[0])[0] == 2


@pytest.mark.commits  # creates race from threads
def test_concurrent_creates_for_the_same_patient_and_payer_make_one_coverage(app, world, caller):
    import threading

    import webtest

    barrier, results = threading.Barrier(2), []

    def send():
        client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        barrier.wait()
        results.append(client.post_json(caller.url("coverages"), CoverageCreate.EXAMPLE,
                                        headers=caller.write_headers(), expect_errors=True))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(r.status_int for r in results) == [201, 409]
    created = next(r for r in results if r.status_int == 201).json["data"]["id"]
    conflict = next(r for r in results if r.status_int == 409).json
    assert conflict["code"] == "coverage_exists" and created in conflict["detail"]
