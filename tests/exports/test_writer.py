"""The export writer: one attempt's NDJSON files, each line the FHIR R4 resource the single read answers, and what
the reads leave out left out (docs/decisions/0099-bulk-export-file-contents.md)."""

import logging

import pytest

from clinicrecords.access.interfaces import Permission
from clinicrecords.clinical.models import Referral
from clinicrecords.encounters.models import Encounter
from clinicrecords.encounters.services import EncounterStaff
from clinicrecords.exports.sources import EXPORT_TYPES, PATIENT_COMPARTMENT, readable_types
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.patients.services import set_restricted
from clinicrecords.sandbox.interfaces import sandbox_id
from clinicrecords.encounters.schemas import SANDBOX_ENCOUNTER_IDS
from tests.common.clinical import clinic_db, headers, restrict
from tests.common.fhir import assert_valid_fhir
from tests.exports.writing import export, exported, lines_of, seeded_sandbox

FHIR = "application/fhir+json"
# Where each source's single reads are: (FHIR type, read permission) → the clinic's collection.
COLLECTIONS = {
    ("Patient", "patients:read"): "patients",
    ("AllergyIntolerance", "allergies:read"): "allergies",
    ("Condition", "conditions:read"): "conditions",
    ("MedicationStatement", "medications:read"): "medication-statements",
    ("MedicationRequest", "medications:read"): "prescriptions",
    ("Encounter", "encounters:read"): "encounters",
    ("ServiceRequest", "referrals:read"): "referrals",
    ("Coverage", "coverage:read"): "coverages",
    ("Practitioner", "providers:read"): "providers",
    ("Practitioner", "care_providers:read"): "care-providers",
    ("Organization", "payers:read"): "payers",
}
ADA = SANDBOX_PATIENT_IDS[0]


def listed_ids(testapp, clinic_id, key, collection):
    documents = testapp.get(f"/v1/clinics/{clinic_id}/{collection}?limit=100", headers=headers(key)).json["data"]
    return [document["id"] for document in documents if "id" in document]


def test_patients_are_written_as_their_fhir_reads(world, testapp, registry, tmp_path):
    clinic_id, _, key = seeded_sandbox(world)
    written = export(registry, clinic_id, tmp_path, ["Patient"])
    [patients] = written.output
    assert (patients.type, patients.name, patients.permission) == ("Patient", "Patient-1.ndjson", "patients:read")
    resources = lines_of(tmp_path, patients)
    listed = listed_ids(testapp, clinic_id, key, "patients")
    assert [resource["id"] for resource in resources] == listed
    for resource in resources:
        assert_valid_fhir(resource, "Patient")
        read = testapp.get(f"/v1/clinics/{clinic_id}/patients/{resource['id']}", headers=headers(key, Accept=FHIR))
        assert resource == read.json
    assert sorted(str(patient_id) for patient_id in patients.patient_ids) == sorted(listed)
    assert written.error == () and written.deleted == ()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["Patient-1.ndjson", "Patient-1.ndjson.lines"]


def test_every_type_is_written_as_its_single_reads_answer_it(world, testapp, registry, tmp_path):
    clinic_id, workspace_id, key = seeded_sandbox(world)
    written = export(registry, clinic_id, tmp_path, owner_id=workspace_id)
    found = exported(tmp_path, written)
    assert set(found) == set(COLLECTIONS)  # the sandbox seeds every kind
    assert [f.name for f in written.output] == [
        "Patient-1.ndjson", "AllergyIntolerance-1.ndjson", "Condition-1.ndjson", "MedicationStatement-1.ndjson",
        "ServiceRequest-1.ndjson", "MedicationRequest-1.ndjson", "Encounter-1.ndjson", "Coverage-1.ndjson",
        "Practitioner-1.ndjson", "Practitioner-care-provider-1.ndjson", "Organization-1.ndjson"]
    for (fhir_type, permission), resources in found.items():
        collection = COLLECTIONS[fhir_type, permission]
        assert [resource["id"] for resource in resources] == listed_ids(testapp, clinic_id, key, collection)
        for resource in resources:
            assert_valid_fhir(resource, fhir_type)
            read = testapp.get(f"/v1/clinics/{clinic_id}/{collection}/{resource['id']}",
                               headers=headers(key, Accept=FHIR))
            assert resource == read.json, collection
    for written_file in written.output:
        about = {resource.get("subject", resource.get("patient", resource.get("beneficiary", {}))).get("reference")
                 for resource in lines_of(tmp_path, written_file)}
        if written_file.type == "Patient":
            about = {f"Patient/{resource['id']}" for resource in lines_of(tmp_path, written_file)}
        if written_file.name.startswith("Practitioner-care-provider"):
            about = {resource["extension"][0]["valueReference"]["reference"]
                     for resource in lines_of(tmp_path, written_file)}
        if written_file.name in ("Practitioner-1.ndjson", "Organization-1.ndjson"):
            assert written_file.patient_ids == ()  # the clinic's clinicians and payers are about no patient
            continue
        assert {f"Patient/{patient_id}" for patient_id in written_file.patient_ids} == about, written_file.name


def test_the_types_asked_for_alone_and_each_source_only_under_its_permission(world, registry, tmp_path):
    clinic_id, _, _ = seeded_sandbox(world)
    written = export(registry, clinic_id, tmp_path / "a", ["Condition", "Practitioner"],
                     granted=frozenset({"conditions:read", "providers:read"}))
    assert [(f.type, f.permission) for f in written.output] == [("Condition", "conditions:read"),
                                                                 ("Practitioner", "providers:read")]
    written = export(registry, clinic_id, tmp_path / "b", ["Practitioner"], granted=frozenset({"care_providers:read"}))
    assert [(f.name, f.permission) for f in written.output] == [("Practitioner-care-provider-1.ndjson",
                                                                  "care_providers:read")]


def test_the_offer():
    assert EXPORT_TYPES["Practitioner"] == (Permission.ProvidersRead, Permission.CareProvidersRead)
    assert readable_types({"care_providers:read", "patients:read"}) == ("Patient", "Practitioner")
    assert "Practitioner" not in PATIENT_COMPARTMENT and {"Patient", "Encounter", "Coverage"} <= PATIENT_COMPARTMENT
    assert "Organization" not in PATIENT_COMPARTMENT and EXPORT_TYPES["Organization"] == (Permission.PayersRead,)


def test_a_restricted_patient_and_everything_about_them_are_left_out(world, registry, tmp_path):
    clinic_id, _, _ = seeded_sandbox(world)
    before = export(registry, clinic_id, tmp_path / "before")
    mentioning = {f.name for f in before.output if str(ADA) in (tmp_path / "before" / f.name).read_text()}
    assert {"Patient-1.ndjson", "AllergyIntolerance-1.ndjson", "Condition-1.ndjson", "MedicationStatement-1.ndjson",
            "Encounter-1.ndjson", "ServiceRequest-1.ndjson"} <= mentioning
    restrict(world, clinic_id, ADA)
    after = export(registry, clinic_id, tmp_path / "after")
    for written_file in after.output:
        assert str(ADA) not in (tmp_path / "after" / written_file.name).read_text(), written_file.name
        assert ADA not in written_file.patient_ids
    assert sum(f.count for f in after.output) < sum(f.count for f in before.output)


def test_encounters_the_clinic_marked_sensitive_are_left_out(world, registry, tmp_path):
    clinic_id, _, _ = seeded_sandbox(world)
    [file] = export(registry, clinic_id, tmp_path / "before", ["Encounter"]).output
    ids = [resource["id"] for resource in lines_of(tmp_path / "before", file)]
    seeded_sensitive = SANDBOX_ENCOUNTER_IDS[3]
    assert str(seeded_sensitive) not in ids and ids
    with clinic_db(world, clinic_id) as db:
        assert db.get(Encounter, seeded_sensitive).sensitive is True
        EncounterStaff(db).mark_sensitive(ids[0])
    [file] = export(registry, clinic_id, tmp_path / "after", ["Encounter"]).output
    assert [resource["id"] for resource in lines_of(tmp_path / "after", file)] == ids[1:]


def test_allergy_names_kept_only_as_legacy_text_are_left_out(world, registry, tmp_path):
    clinic_id, _, _ = seeded_sandbox(world)
    [file] = export(registry, clinic_id, tmp_path, ["AllergyIntolerance"]).output
    resources = lines_of(tmp_path, file)
    assert resources and all("id" in resource for resource in resources)
    assert "Sulfa drugs" not in (tmp_path / file.name).read_text()  # the seeded legacy name


def test_a_type_is_split_into_files_of_at_most_split_bytes(world, registry, tmp_path):
    clinic_id, _, _ = seeded_sandbox(world)
    [whole] = export(registry, clinic_id, tmp_path / "whole", ["Patient"]).output
    largest = max(len(line) + 1 for line in (tmp_path / "whole" / whole.name).read_bytes().splitlines())
    split = export(registry, clinic_id, tmp_path / "split", ["Patient"], split_bytes=largest).output
    assert len(split) > 1 and [f.name for f in split] == [f"Patient-{n}.ndjson" for n in range(1, len(split) + 1)]
    assert all(f.size <= largest for f in split)
    assert b"".join((tmp_path / "split" / f.name).read_bytes() for f in split) == (
        tmp_path / "whole" / whole.name).read_bytes()
    assert sorted(p for f in split for p in f.patient_ids) == sorted(whole.patient_ids)


def test_a_record_that_cannot_be_rendered_is_reported_in_the_error_file(world, registry, tmp_path, caplog):
    clinic_id, _, _ = seeded_sandbox(world)
    broken = SANDBOX_ENCOUNTER_IDS[0]
    with clinic_db(world, clinic_id) as db:  # a value the application never writes
        db.get(Encounter, broken).encounter_class = "teleportation"
    with caplog.at_level(logging.ERROR, logger="clinicrecords.exports.writer"):
        written = export(registry, clinic_id, tmp_path, ["Encounter"])
    assert f"Encounter/{broken} could not be rendered (KeyError)" in caplog.text
    assert "teleportation" not in caplog.text  # the record's values stay out of the log
    [errors] = written.error
    assert (errors.type, errors.name, errors.permission, errors.patient_ids) == (
        "OperationOutcome", "OperationOutcome-1.ndjson", "", ())
    [outcome] = lines_of(tmp_path, errors)
    assert_valid_fhir(outcome, "OperationOutcome")
    assert outcome["issue"][0]["diagnostics"] == f"Encounter/{broken} could not be exported."
    [encounters] = written.output
    assert str(broken) not in [resource["id"] for resource in lines_of(tmp_path, encounters)]


def test_a_failed_attempt_leaves_no_file_behind(world, registry, tmp_path):
    clinic_id, _, _ = seeded_sandbox(world)
    (tmp_path / "Condition-1.ndjson").mkdir()  # the third file cannot be renamed into place
    with pytest.raises(IsADirectoryError):
        export(registry, clinic_id, tmp_path, ["Patient", "AllergyIntolerance", "Condition", "Encounter"])
    assert [path.name for path in tmp_path.iterdir()] == ["Condition-1.ndjson"]


def test_a_since_export_brings_back_the_records_of_a_patient_shown_to_keys_again(world, registry, tmp_path):
    clinic_id, _, _ = seeded_sandbox(world)
    restrict(world, clinic_id, ADA)
    first = export(registry, clinic_id, tmp_path / "first")
    with clinic_db(world, clinic_id) as db:
        set_restricted(db, ADA, False)
    second = export(registry, clinic_id, tmp_path / "second", since=first.transaction_time)
    found = exported(tmp_path / "second", second)
    assert [resource["id"] for resource in found["Patient", "patients:read"]] == [str(ADA)]
    assert str(sandbox_id("condition:1")) in [resource["id"] for resource in found["Condition", "conditions:read"]]
    assert {ADA} == {patient_id for file in second.output for patient_id in file.patient_ids}


def test_what_the_reads_show_only_the_keys_owner_is_rendered_for_the_owner_given(world, registry, tmp_path):
    clinic_id, workspace_id, _ = seeded_sandbox(world)
    with clinic_db(world, clinic_id) as db:  # one referral sent by the workspace, one recorded with no sender
        for referral_id, sender in ((sandbox_id("referral:1"), workspace_id), (sandbox_id("referral:2"), None)):
            referral = db.get(Referral, referral_id)
            referral.status, referral.status_reason, referral.sender_owner_id = "declined", "Out of area", sender

    def reasons(directory, **owner):
        [file] = export(registry, clinic_id, directory, ["ServiceRequest"], **owner).output
        return {resource["id"]: [e["valueString"] for e in resource["extension"] if e["url"].endswith("status-reason")]
                for resource in lines_of(directory, file)}

    assert reasons(tmp_path / "sender", owner_id=workspace_id) == {
        str(sandbox_id("referral:1")): ["Out of area"], str(sandbox_id("referral:2")): []}
    assert set(map(tuple, reasons(tmp_path / "nobody", owner_id=None).values())) == {()}
