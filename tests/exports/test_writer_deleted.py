"""An export with `_since` names the records removed since (the manifest's `deleted`): outside care providers an
app removed, each a transaction Bundle DELETE-ing it; nothing about a restricted patient (decision 0101,
`deleted`, written by the writer)."""

import uuid

from fhir.resources.R4B import get_fhir_model_class

from clinicrecords.care_providers.schemas import CareProviderCreate
from tests.common.clinical import headers, restrict
from tests.exports.writing import export, lines_of, seeded_sandbox


def _added_contact(testapp, clinic_id, key, patient_id):
    body = dict(CareProviderCreate.EXAMPLE, patient_id=str(patient_id))
    return testapp.post_json(f"/v1/clinics/{clinic_id}/care-providers", body,
                             headers=headers(key, **{"Idempotency-Key": str(uuid.uuid4())})).json["data"]["id"]


def test_a_since_export_names_the_outside_care_providers_removed_since(world, testapp, registry, tmp_path):
    clinic_id, workspace_id, key = seeded_sandbox(world)
    patients = testapp.get(f"/v1/clinics/{clinic_id}/patients", headers=headers(key)).json["data"]
    removed, hidden = (_added_contact(testapp, clinic_id, key, patient["id"]) for patient in patients[:2])
    first = export(registry, clinic_id, tmp_path / "first")
    assert first.deleted == ()  # without since, nothing is named deleted
    for contact_id in (removed, hidden):
        testapp.delete(f"/v1/clinics/{clinic_id}/care-providers/{contact_id}", headers=headers(key), status=204)
    restrict(world, clinic_id, uuid.UUID(patients[1]["id"]))

    second = export(registry, clinic_id, tmp_path / "second", since=first.transaction_time)
    [deleted] = second.deleted
    assert (deleted.type, deleted.name, deleted.permission) == (
        "Bundle", "Practitioner-care-provider-deleted-1.ndjson", "care_providers:read")
    [bundle] = lines_of(tmp_path / "second", deleted)
    get_fhir_model_class("Bundle").model_validate(bundle)  # R4: a transaction entry DELETE-ing needs no resource
    base = f"https://api.example/v1/clinics/{clinic_id}/fhir"
    url = f"Practitioner/{removed}"
    assert bundle == {"resourceType": "Bundle", "type": "transaction",
                      "entry": [{"fullUrl": f"{base}/{url}", "request": {"method": "DELETE", "url": url}}]}
    assert deleted.patient_ids == (uuid.UUID(patients[0]["id"]),)

    later = export(registry, clinic_id, tmp_path / "later", since=second.transaction_time)
    assert later.deleted == ()
    only_clinicians = export(registry, clinic_id, tmp_path / "clinicians", ["Practitioner"],
                             since=first.transaction_time, granted=frozenset({"providers:read"}))
    assert only_clinicians.deleted == ()
