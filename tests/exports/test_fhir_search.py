"""FHIR search under the clinic's FHIR base: GET {base}/{type}?... and POST {base}/{type}/_search with a form,
a searchset Bundle of the records the export writes, R4's parameters, paging through an encrypted `_cursor`,
unknown parameters refused unless lenient, under the reads' rules (permission per type, restricted patients and
sensitive encounters never found, every search audited naming its patients)."""

import datetime
import uuid
from urllib.parse import parse_qsl, urlsplit

import pytest
from sqlalchemy import select

from clinicrecords.audit.models import AuditEntry
from clinicrecords.encounters.models import Encounter
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from tests.common.clinical import add_patient, clinic_db, headers, restrict, sandbox
from tests.common.fhir import assert_valid_fhir
from tests.exports.flow import export, outcome_code

ADA = str(SANDBOX_PATIENT_IDS[0])
FHIR_JSON = "application/fhir+json; fhirVersion=4.0"


def _search(testapp, clinic_id, key, path, status=200, **extra):
    return testapp.get(f"/v1/clinics/{clinic_id}/fhir/{path}", headers=headers(key, **extra), status=status)


def _post(testapp, clinic_id, key, fhir_type, form, status=200, **extra):
    return testapp.post(f"/v1/clinics/{clinic_id}/fhir/{fhir_type}/_search", form,
                        headers=headers(key, **extra), status=status)


def _ids(bundle):
    return [entry["resource"]["id"] for entry in bundle.get("entry", []) if entry["search"]["mode"] == "match"]


def _relative(url):
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def _all_pages(testapp, key, first):
    bundles = [first]
    while any(link["relation"] == "next" for link in bundles[-1]["link"]):
        [next_url] = [link["url"] for link in bundles[-1]["link"] if link["relation"] == "next"]
        bundles.append(testapp.get(_relative(next_url), headers=headers(key)).json)
    return bundles


def test_each_types_search_finds_what_the_export_writes_as_a_valid_searchset(testapp, world):
    clinic_id, key = sandbox(world)
    found, _ = export(testapp, clinic_id, key)
    for fhir_type, resources in found.items():
        answer = _search(testapp, clinic_id, key, f"{fhir_type}?_count=100")
        assert answer.headers["Content-Type"] == FHIR_JSON
        bundle = assert_valid_fhir(answer.json, "Bundle")
        assert bundle.type == "searchset"
        by_id = {entry["resource"]["id"]: entry for entry in answer.json["entry"]}
        assert by_id.keys() == {resource["id"] for resource in resources}, fhir_type
        for resource in resources:
            entry = by_id[resource["id"]]
            assert entry["resource"] == resource
            assert entry["fullUrl"].endswith(f"/v1/clinics/{clinic_id}/fhir/{fhir_type}/{resource['id']}")
            assert entry["search"] == {"mode": "match"}


def test_pages_follow_the_next_link_to_the_end_without_repeats(testapp, world):
    clinic_id, key = sandbox(world)
    for _ in range(7):
        add_patient(world, clinic_id)
    everyone = set(_ids(_search(testapp, clinic_id, key, "Patient?_count=100").json))
    bundles = _all_pages(testapp, key, _search(testapp, clinic_id, key, "Patient?_count=3").json)
    pages = [_ids(bundle) for bundle in bundles]
    assert all(len(page) == 3 for page in pages[:-1]) and 1 <= len(pages[-1]) <= 3
    seen = [record_id for page in pages for record_id in page]
    assert len(seen) == len(set(seen)) and set(seen) == everyone and len(everyone) == 12
    self_link = bundles[0]["link"][0]
    assert self_link["relation"] == "self" and self_link["url"].endswith("/Patient?_count=3")


def test_practitioner_pages_across_its_two_sources(testapp, world):
    clinic_id, key = sandbox(world)
    found, _ = export(testapp, clinic_id, key, "?_type=Practitioner")
    bundles = _all_pages(testapp, key, _search(testapp, clinic_id, key, "Practitioner?_count=2").json)
    seen = [record_id for bundle in bundles for record_id in _ids(bundle)]
    assert sorted(seen) == sorted(resource["id"] for resource in found["Practitioner"])


def test_patient_parameters_as_r4_reads_them(testapp, world):
    clinic_id, key = sandbox(world)

    def ids(query):
        return set(_ids(_search(testapp, clinic_id, key, f"Patient?{query}").json))

    ada, bram = str(SANDBOX_PATIENT_IDS[0]), str(SANDBOX_PATIENT_IDS[1])
    assert ids("family=quil") == {ada}  # the start of the name, any case
    assert ids("family:exact=quil") == set() and ids("family:exact=Quill") == {ada}
    assert ids("name:contains=OLLO") == {bram}
    assert ids("given=ada,bram") == {ada, bram}  # a comma is OR
    assert ids("given=ada&family=holloway") == set()  # two parameters are AND
    assert ids("birthdate=1984") == {ada} and ids("birthdate=1984-03-02") == {ada}
    assert ids("birthdate=1984-03-03") == set()
    assert ids("birthdate=ge1984-01-01&birthdate=lt1985") == {ada}
    assert ada not in ids("birthdate=gt1984") and bram in ids("birthdate=lt1984")
    assert ids("gender=female") == {ada, str(SANDBOX_PATIENT_IDS[3])}
    assert ids("gender=http://hl7.org/fhir/administrative-gender|male") == {bram, str(SANDBOX_PATIENT_IDS[2])}
    assert ids("identifier=SBX-QUILL") == {ada}
    assert ids("identifier=urn:clinicrecords:external-id|SBX-QUILL") == {ada}
    assert ids("identifier=http://elsewhere.example|SBX-QUILL") == set()
    assert ids(f"_id={ada},{bram}") == {ada, bram} and ids("_id=not-an-id") == set()
    assert len(ids("family=&given=")) == 5  # a parameter without a value is ignored
    assert ids("_count=0") == set()


def test_patient_parameters_and_last_updated_on_clinical_types(testapp, world):
    clinic_id, key = sandbox(world)
    found, _ = export(testapp, clinic_id, key, "?_type=Condition,Encounter,Coverage,AllergyIntolerance")
    adas = {c["id"] for c in found["Condition"] if c["subject"]["reference"] == f"Patient/{ADA}"}
    assert adas
    for query in (f"patient={ADA}", f"subject=Patient/{ADA}",
                  f"patient=https://elsewhere.example/fhir/Patient/{ADA}"):
        assert set(_ids(_search(testapp, clinic_id, key, f"Condition?{query}&_count=100").json)) == adas
    coverages = {c["id"] for c in found["Coverage"] if c["beneficiary"]["reference"] == f"Patient/{ADA}"}
    assert set(_ids(_search(testapp, clinic_id, key, f"Coverage?beneficiary={ADA}").json)) == coverages
    active = {a["id"] for a in found["AllergyIntolerance"]
              if a.get("clinicalStatus", {}).get("coding", [{}])[0].get("code") == "active"}
    assert set(_ids(_search(testapp, clinic_id, key, "AllergyIntolerance?clinical-status=active&_count=100")
                    .json)) == active
    encounter = found["Encounter"][0]
    day = encounter["period"]["start"][:10]
    assert encounter["id"] in _ids(_search(testapp, clinic_id, key, f"Encounter?date={day}&_count=100").json)
    future = (datetime.date.today() + datetime.timedelta(days=2)).isoformat()
    assert _ids(_search(testapp, clinic_id, key, f"Condition?_lastUpdated=gt{future}").json) == []
    assert len(_ids(_search(testapp, clinic_id, key, "Condition?_lastUpdated=ge2000&_count=100").json)) == \
        len(found["Condition"])


@pytest.mark.parametrize("query", ["Patient?colour=blue", "Patient?family:phonetic=quill", "Patient?birthdate=soon",
                                   "Patient?birthdate=sa2020", "Patient?_count=101", "Patient?_count=-1",
                                   "Condition?family=quill", "Patient?_sort=family", "Patient?_count=1x"])
def test_what_is_not_offered_is_400_unless_lenient(testapp, world, query):
    clinic_id, key = sandbox(world)
    refused = _search(testapp, clinic_id, key, query, status=400)
    assert refused.json["resourceType"] == "OperationOutcome" and refused.json["issue"][0]["severity"] == "error"
    lenient = _search(testapp, clinic_id, key, query, Prefer="handling=lenient").json
    [outcome] = [entry["resource"] for entry in lenient["entry"] if entry["search"]["mode"] == "outcome"]
    assert_valid_fhir(outcome, "OperationOutcome")
    assert outcome["issue"][0]["severity"] == "warning"
    # The self link shows what was applied: nothing of what was ignored.
    self_url = lenient["link"][0]["url"]
    assert dict(parse_qsl(urlsplit(self_url).query)) == {"_count": "25"}


def test_a_form_search_keeps_names_out_of_urls_and_pages_alike(testapp, world):
    clinic_id, key = sandbox(world)
    for _ in range(3):
        add_patient(world, clinic_id, family_name="Quillon")
    first = _post(testapp, clinic_id, key, "Patient", {"family": "quill", "_count": "2"})
    bundles = _all_pages(testapp, key, first.json)
    assert sum(len(_ids(bundle)) for bundle in bundles) == 4
    next_url = first.json["link"][1]["url"]
    assert "quill" not in next_url.lower() and list(parse_qsl(urlsplit(next_url).query))[0][0] == "_cursor"
    refused = testapp.post(f"/v1/clinics/{clinic_id}/fhir/Patient/_search", '{"family": "quill"}',
                           headers={**headers(key), "Content-Type": "application/json"}, status=415)
    assert outcome_code(refused) == "unsupported_media_type"


def test_a_cursor_works_only_as_given_for_its_search_and_its_owner(testapp, world):
    clinic_id = world.clinic(seed=True)
    key = world.key(clinic_id=clinic_id)
    first = _search(testapp, clinic_id, key, "Patient?_count=2").json
    next_url = _relative(first["link"][1]["url"])
    cursor = dict(parse_qsl(urlsplit(next_url).query))["_cursor"]
    for path in (f"Patient?_cursor={cursor[:-4]}abcd", f"Condition?_cursor={cursor}",
                 f"Patient?_cursor={cursor}&family=quill"):
        assert outcome_code(_search(testapp, clinic_id, key, path, status=400)) == "invalid_request"
    workspace_id, _ = world.workspace()
    world.grant(workspace_id, clinic_id, {"patients:read"})
    other = world.key(workspace_id=workspace_id, mode="live")
    assert outcome_code(testapp.get(next_url, headers=headers(other), status=400)) == "invalid_request"


def test_restricted_patients_and_sensitive_encounters_are_never_found(testapp, world):
    clinic_id, key = sandbox(world)
    found, _ = export(testapp, clinic_id, key, "?_type=Encounter")
    encounter = found["Encounter"][-1]["id"]
    with clinic_db(world, clinic_id) as db:
        db.get(Encounter, uuid.UUID(encounter)).sensitive = True
    restrict(world, clinic_id, SANDBOX_PATIENT_IDS[0])
    assert ADA not in _ids(_search(testapp, clinic_id, key, "Patient?_count=100").json)
    assert _ids(_search(testapp, clinic_id, key, f"Condition?patient={ADA}").json) == []
    assert _ids(_search(testapp, clinic_id, key, f"Patient?_id={ADA}").json) == []
    assert encounter not in _ids(_search(testapp, clinic_id, key, "Encounter?_count=100").json)


def test_a_permission_opens_its_types_search_only(testapp, world):
    clinic_id = world.clinic(seed=True)
    workspace_id, _ = world.workspace()
    world.grant(workspace_id, clinic_id, {"patients:read", "care_providers:read"})
    key = world.key(workspace_id=workspace_id, mode="live")
    _search(testapp, clinic_id, key, "Patient")
    refused = _search(testapp, clinic_id, key, "Condition", status=403)
    assert outcome_code(refused) == "scope_missing"
    # Practitioner: only the care providers, the source its permission opens.
    own = world.key(clinic_id=clinic_id)
    everyone = set(_ids(_search(testapp, clinic_id, own, "Practitioner?_count=100").json))
    care_providers = set(_ids(_search(testapp, clinic_id, key, "Practitioner?_count=100").json))
    assert care_providers and care_providers < everyone
    assert outcome_code(_search(testapp, clinic_id, key, "PractitionerRole", status=403)) == "scope_missing"


def test_another_clinics_records_are_not_found(testapp, world):
    connected = world.connected()
    elsewhere = world.clinic()
    theirs = add_patient(world, elsewhere, family_name="Elsewhere")
    assert _ids(_search(testapp, connected.clinic_id, connected.key, f"Patient?_id={theirs}").json) == []
    assert _ids(_search(testapp, connected.clinic_id, connected.key, "Patient?family=Elsewhere").json) == []


def test_every_search_is_audited_naming_its_records_and_patients(testapp, world):
    clinic_id, key = sandbox(world)
    answer = _post(testapp, clinic_id, key, "Condition", {"patient": ADA})
    named_records = set(_ids(answer.json))
    assert named_records
    with clinic_db(world, clinic_id) as db:
        entries = db.scalars(select(AuditEntry).where(AuditEntry.request_id == answer.headers["X-Request-Id"])).all()
    named = {str(value) for entry in entries for value in entry.record_ids}
    assert named_records | {ADA} <= named


def test_practitioner_roles_are_found_by_their_practitioner(testapp, world):
    clinic_id, key = sandbox(world)
    clinicians = [p for p in export(testapp, clinic_id, key, "?_type=Practitioner")[0]["Practitioner"]
                  if not any("valueReference" in e for e in p["extension"])]
    practitioner = clinicians[0]["id"]
    bundle = _search(testapp, clinic_id, key, f"PractitionerRole?practitioner={practitioner}").json
    [role] = [entry["resource"] for entry in bundle["entry"]]
    assert_valid_fhir(role, "PractitionerRole")
    assert role["practitioner"]["reference"] == f"Practitioner/{practitioner}"
    assert testapp.get(f"/v1/clinics/{clinic_id}/fhir/PractitionerRole/{role['id']}", headers=headers(key)).json == role
    assert _search(testapp, clinic_id, key, f"PractitionerRole?practitioner={uuid.uuid4()}").json.get("entry") is None


def test_the_capability_statement_declares_each_types_read_search_and_parameters(testapp, world):
    clinic_id, _ = sandbox(world)
    statement = assert_valid_fhir(testapp.get(f"/v1/clinics/{clinic_id}/fhir/metadata").json, "CapabilityStatement")
    declared = {resource.type: resource for resource in statement.rest[0].resource}
    assert len(declared) == 11 and "PractitionerRole" in declared
    for resource in declared.values():
        assert [interaction.code for interaction in resource.interaction] == ["read", "search-type"]
        assert {"_id", "_lastUpdated"} <= {parameter.name for parameter in resource.searchParam}
    assert {p.name for p in declared["Patient"].searchParam} >= {"identifier", "name", "family", "given",
                                                                 "birthdate", "gender"}
