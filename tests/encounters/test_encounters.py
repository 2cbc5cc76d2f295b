import uuid

import pytest

from clinicrecords.encounters.schemas import (
    ORDER_AND_BILLING_FIELDS,
    SANDBOX_APP_DRAFT_ID,
    SANDBOX_CLINIC_DRAFT_ID,
    SANDBOX_ENCOUNTER_IDS,
    EncounterCreate,
    EncounterUpdate,
)
from tests.common.clinical import add_patient, admin, headers, idem, restrict, sandbox

FIELDS = {"id", "patient_id", "provider_id", "status", "class", "type", "period", "reason", "source", "editable",
          "created_at", "updated_at"}


@pytest.fixture
def box(world):
    clinic_id, key = sandbox(world)
    return clinic_id, key, f"/v1/clinics/{clinic_id}/encounters"


def _open(testapp, box, **overrides):
    clinic_id, key, url = box
    return testapp.post_json(url, dict(EncounterCreate.EXAMPLE, **overrides), headers=idem(key), status=201)


def test_examples_open_and_adjust_a_draft_in_any_sandbox(testapp, box):
    clinic_id, key, url = box
    created = _open(testapp, box)
    draft = created.json["data"]
    assert set(draft) == FIELDS
    assert (draft["status"], draft["source"], draft["editable"], draft["class"]) == ("draft", "api", True, "virtual")
    assert created.headers["Location"].endswith(f"{url}/{draft['id']}")
    patched = testapp.patch_json(f"{url}/{draft['id']}", EncounterUpdate.EXAMPLE, headers=headers(key)).json["data"]
    assert patched["reason"] == EncounterUpdate.EXAMPLE["reason"]
    assert patched["period"]["end"] == "2026-03-02T09:30:00+00:00"


def test_sandbox_lists_seeded_encounters_but_not_the_sensitive_note(testapp, box):
    clinic_id, key, url = box
    listed = testapp.get(url, headers=headers(key)).json["data"]
    assert sorted(e["id"] for e in listed) == sorted(map(str, [*SANDBOX_ENCOUNTER_IDS[:3], SANDBOX_APP_DRAFT_ID]))
    testapp.get(f"{url}/{SANDBOX_ENCOUNTER_IDS[3]}", headers=headers(key), status=404)
    assert {e["status"] for e in listed} == {"draft", "completed"}
    assert len(testapp.get(f"{url}?status=completed", headers=headers(key)).json["data"]) == 2


def test_idempotency_key_is_required(testapp, box):
    clinic_id, key, url = box
    response = testapp.post_json(url, EncounterCreate.EXAMPLE, headers=headers(key), status=400)
    assert response.json["code"] == "invalid_request"


@pytest.mark.parametrize("field", sorted(ORDER_AND_BILLING_FIELDS) + ["_internal", "_signed"])
def test_order_billing_and_underscore_fields_are_unknown_field(testapp, box, field):
    clinic_id, key, url = box
    response = testapp.post_json(url, dict(EncounterCreate.EXAMPLE, **{field: []}), headers=idem(key), status=400)
    assert response.json["code"] == "unknown_field"
    assert response.json["errors"] == [{"pointer": f"/{field}", "message": "This field is not accepted."}]
    draft = _open(testapp, box).json["data"]
    response = testapp.patch_json(f"{url}/{draft['id']}", {field: "x"}, headers=headers(key), status=400)
    assert response.json["code"] == "unknown_field"


@pytest.mark.parametrize("field", ["note", "text", "status", "signed"])
def test_a_draft_has_no_field_for_note_text_or_signing(testapp, box, field):
    clinic_id, key, url = box
    response = testapp.post_json(url, dict(EncounterCreate.EXAMPLE, **{field: "x"}), headers=idem(key), status=400)
    assert response.json["code"] == "invalid_request"
    assert response.json["errors"][0]["pointer"] == f"/{field}"


@pytest.mark.parametrize("body", [{"class": "ambulatory"}, {"patient_id": str(uuid.uuid4())},
                                  {"provider_id": str(uuid.uuid4())}])
def test_patch_changes_only_type_start_end_reason(testapp, box, body):
    clinic_id, key, url = box
    draft = _open(testapp, box).json["data"]
    response = testapp.patch_json(f"{url}/{draft['id']}", body, headers=headers(key), status=400)
    assert response.json["code"] == "invalid_request"


def test_bad_references_and_periods_are_400(testapp, box):
    clinic_id, key, url = box
    for overrides, pointer in (({"patient_id": str(uuid.uuid4())}, "/patient_id"),
                               ({"provider_id": str(uuid.uuid4())}, "/provider_id"),
                               ({"end": "2026-03-02T08:00:00Z"}, "/end")):
        response = testapp.post_json(url, dict(EncounterCreate.EXAMPLE, **overrides), headers=idem(key), status=400)
        assert [e["pointer"] for e in response.json["errors"]] == [pointer]
    draft = _open(testapp, box).json["data"]
    response = testapp.patch_json(f"{url}/{draft['id']}", {"start": "2026-03-02T10:00:00Z"}, headers=headers(key),
                                  status=400)
    assert response.json["errors"][0]["pointer"] == "/start"


@pytest.mark.parametrize("action", ["touch", "sign"])
def test_once_a_clinician_touches_or_signs_it_patch_is_note_not_editable(testapp, box, action):
    clinic_id, key, url = box
    draft = _open(testapp, box).json["data"]
    status, result, _ = admin("encounter", action, "--clinic", clinic_id, draft["id"])
    assert status == 0
    response = testapp.patch_json(f"{url}/{draft['id']}", {"reason": "x"}, headers=headers(key), status=409)
    assert response.json["code"] == "note_not_editable"
    read = testapp.get(f"{url}/{draft['id']}", headers=headers(key)).json["data"]
    assert read["editable"] is False
    # Signing is what completes an encounter; a clinician's edit leaves it a draft.
    assert read["status"] == ("completed" if action == "sign" else "draft")
    # The draft had an end; signing keeps it (a draft without one gets the signing time).
    assert read["period"]["end"] == "2026-03-02T09:20:00+00:00"
    assert result["status"] == read["status"]


def test_only_the_app_that_opened_a_draft_may_patch_it(world, testapp, box):
    clinic_id, key, url = box
    testapp.patch_json(f"{url}/{SANDBOX_CLINIC_DRAFT_ID}", {"reason": "x"}, headers=headers(key), status=409)
    connected = world.connected()
    patient_id = add_patient(world, connected.clinic_id)
    live_url = f"/v1/clinics/{connected.clinic_id}/encounters"
    body = {"patient_id": str(patient_id), "class": "ambulatory", "start": "2026-01-01T10:00:00Z"}
    draft = testapp.post_json(live_url, body, headers=idem(connected.key), status=201).json["data"]
    other_workspace, _ = world.workspace(name="Other app")
    world.grant(other_workspace, connected.clinic_id)
    other_key = world.key(workspace_id=other_workspace, mode="live")
    seen = testapp.get(f"{live_url}/{draft['id']}", headers=headers(other_key)).json["data"]
    assert seen["editable"] is False
    response = testapp.patch_json(f"{live_url}/{draft['id']}", {"reason": "x"}, headers=headers(other_key),
                                  status=409)
    assert response.json["code"] == "note_not_editable"


def test_signing_a_draft_without_an_end_gives_it_one(world, testapp, connected):
    patient_id = add_patient(world, connected.clinic_id)
    url = f"/v1/clinics/{connected.clinic_id}/encounters"
    body = {"patient_id": str(patient_id), "class": "ambulatory", "start": "2026-01-01T10:00:00Z"}
    draft = testapp.post_json(url, body, headers=idem(connected.key), status=201).json["data"]
    assert draft["period"]["end"] is None
    assert admin("encounter", "sign", "--clinic", connected.clinic_id, draft["id"])[1]["status"] == "completed"
    signed = testapp.get(f"{url}/{draft['id']}", headers=connected.headers).json["data"]
    assert signed["period"]["end"] is not None and signed["status"] == "completed"


def test_sensitive_and_restricted_encounters_are_not_listed(world, testapp, connected):
    patient_id = add_patient(world, connected.clinic_id)
    url = f"/v1/clinics/{connected.clinic_id}/encounters"
    body = {"patient_id": str(patient_id), "class": "home", "start": "2026-01-01T10:00:00Z"}
    first = testapp.post_json(url, body, headers=idem(connected.key), status=201).json["data"]
    second = testapp.post_json(url, body, headers=idem(connected.key), status=201).json["data"]
    assert admin("encounter", "mark-sensitive", "--clinic", connected.clinic_id, first["id"])[0] == 0
    assert [e["id"] for e in testapp.get(url, headers=connected.headers).json["data"]] == [second["id"]]
    testapp.get(f"{url}/{first['id']}", headers=connected.headers, status=404)
    testapp.patch_json(f"{url}/{first['id']}", {"reason": "x"}, headers=connected.headers, status=404)
    restrict(world, connected.clinic_id, patient_id)
    assert testapp.get(url, headers=connected.headers).json["data"] == []


def test_fhir_encounter(testapp, box):
    clinic_id, key, url = box
    resource = testapp.get(f"{url}/{SANDBOX_ENCOUNTER_IDS[1]}",
                           headers=headers(key, Accept="application/fhir+json")).json
    assert resource["resourceType"] == "Encounter"
    assert resource["status"] == "finished"
    assert resource["class"]["code"] == "VR"
    assert resource["participant"][0]["individual"]["reference"].startswith("Practitioner/")
    assert resource["reasonCode"] == [{"text": "Blood pressure review"}]


def test_encounter_scopes(world, testapp):
    narrow = world.connected(scopes={"encounters:read"})
    response = testapp.post_json(f"/v1/clinics/{narrow.clinic_id}/encounters", EncounterCreate.EXAMPLE,
                                 headers=idem(narrow.key), status=403)
    assert response.json["code"] == "scope_missing"


def test_encounter_commands_refuse_bad_input(world, testapp, box):
    clinic_id, key, url = box
    assert admin("encounter", "touch", "--clinic", clinic_id, uuid.uuid4())[0] == 2
    assert admin("encounter", "sign", "--clinic", uuid.uuid4(), SANDBOX_CLINIC_DRAFT_ID)[0] == 2
    assert admin("encounter", "sign", "--clinic", clinic_id, "not-a-uuid")[0] == 2
    completed = SANDBOX_ENCOUNTER_IDS[0]
    status, _, err = admin("encounter", "sign", "--clinic", clinic_id, completed)
    assert status == 2 and "already signed" in err
    assert admin("encounter", "touch", "--clinic", clinic_id, completed)[0] == 2
