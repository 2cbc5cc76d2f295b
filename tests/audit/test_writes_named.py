"""Every write names, in its audit entry, the patient and every record it touched (decision 0059):
the access report ("who read what") finds a patient's records through those ids.

Generic over the OpenAPI document: each write route of a clinic is sent with its documented example to a fresh
sandbox; the rows of every patient table that changed (found by comparing the clinic's tables before and
after) are the oracle: their ids and their patients' ids must all be in the request's audit entry."""

import uuid

from sqlalchemy import text

from clinicrecords.api.openapi import document
from clinicrecords.clinical.schemas import AllergyCreate
from clinicrecords.db.meta import TenantBase
from clinicrecords.db.tenancy import schema_name
from tests.audit.test_audit import entries

WRITES = ("post", "patch", "delete")
# What the issue names; each must be among the routes checked, so the sweep cannot pass by checking nothing.
MUST_BE_CHECKED = {
    ("post", "/v1/clinics/{clinic_id}/allergies"), ("patch", "/v1/clinics/{clinic_id}/allergies/{allergy_id}"),
    ("post", "/v1/clinics/{clinic_id}/conditions"), ("post", "/v1/clinics/{clinic_id}/medication-statements"),
    ("post", "/v1/clinics/{clinic_id}/referrals"), ("post", "/v1/clinics/{clinic_id}/encounters"),
    ("patch", "/v1/clinics/{clinic_id}/encounters/{encounter_id}"), ("post", "/v1/clinics/{clinic_id}/care-providers"),
    ("delete", "/v1/clinics/{clinic_id}/care-providers/{care_provider_id}"),
    ("post", "/v1/clinics/{clinic_id}/coverages"), ("post", "/v1/clinics/{clinic_id}/patients"),
    ("patch", "/v1/clinics/{clinic_id}/patients/{patient_id}"),
    ("delete", "/v1/clinics/{clinic_id}/submissions/{submission_id}"),
    ("post", "/v1/clinics/{clinic_id}/patient-imports"),
}


def _patient_tables():
    return [table for table in TenantBase.metadata.sorted_tables
            if table.name != "audit_log" and ("patient_id" in table.c or table.name == "patients")]


def _snapshot(engine, clinic_id):
    """{(table, row key): (ids the row names, its digest)} for every row of every patient table."""
    rows = {}
    schema = schema_name(clinic_id)
    with engine.connect() as connection:
        for table in _patient_tables():
            columns = [name for name in ("id", "patient_id") if name in table.c]
            found = connection.execute(text(
                f'SELECT {", ".join(columns)}, md5(t::text) AS digest FROM "{schema}"."{table.name}" t'))
            for row in found.mappings():
                named = {str(row[name]) for name in columns if row[name] is not None}
                rows[(table.name, str(row["id"]) if "id" in columns else row["digest"])] = (named, row["digest"])
    return rows


def _touched(before, after):
    """The ids named by every row inserted, deleted or changed, as it was and as it is."""
    touched = set()
    for key in before.keys() | after.keys():
        old, new = before.get(key), after.get(key)
        if old is None or new is None or old[1] != new[1]:
            touched |= (old or (set(), None))[0] | (new or (set(), None))[0]
    return touched


def _writes(registry):
    for path, methods in document(registry)["paths"].items():
        if path.startswith("/v1/clinics/{clinic_id}/"):
            for method, operation in methods.items():
                # A FHIR search sent as a form is a POST that reads (its audit entry names what it found:
                # tests/exports/test_fhir_search.py).
                searches = "application/x-www-form-urlencoded" in operation.get("requestBody", {}).get("content", {})
                if method in WRITES and not searches:
                    yield method, path, operation


def _sender(world, operation):
    if operation.get("x-clinic-key-only"):
        clinic_id = world.clinic(seed=True)
        return clinic_id, {"Authorization": f"Bearer {world.key(clinic_id=clinic_id)}"}
    workspace_id, clinic_id = world.workspace()
    return clinic_id, {"Authorization": f"Bearer {world.key(workspace_id=workspace_id, mode='test')}"}


def _url(testapp, path, operation, clinic_id, headers):
    values = {"clinic_id": str(clinic_id)}
    for parameter in operation["parameters"]:
        if parameter["in"] != "path" or parameter["name"] == "clinic_id":
            continue
        if parameter["name"] == "submission_id":  # no seeded example: the sender's own pending submission
            sent = testapp.post_json(f"/v1/clinics/{clinic_id}/allergies", AllergyCreate.EXAMPLE,
                                     headers={**headers, "Idempotency-Key": str(uuid.uuid4())}, status=202)
            values["submission_id"] = sent.json["data"]["submission_id"]
        else:
            values[parameter["name"]] = parameter["example"]
    return path.format(**values)


def test_every_write_names_the_patient_and_every_record_it_touched(testapp, world, engine, registry):
    checked, failures = set(), []
    for method, path, operation in _writes(registry):
        clinic_id, headers = _sender(world, operation)
        url = _url(testapp, path, operation, clinic_id, headers)
        if any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in operation["parameters"]):
            headers = {**headers, "Idempotency-Key": str(uuid.uuid4())}
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("example")
        before = _snapshot(engine, clinic_id)
        if body is None:
            response = getattr(testapp, method)(url, headers=headers, expect_errors=True)
        else:
            response = getattr(testapp, f"{method}_json")(url, body, headers=headers, expect_errors=True)
        touched = _touched(before, _snapshot(engine, clinic_id))
        [entry] = [e for e in entries(clinic_id) if e["request_id"] == response.headers["X-Request-Id"]] or [None]
        if entry is None:  # not an audited collection (inventory, payment advices)
            assert not touched, f"{method.upper()} {path} changed patient records and has no audit entry"
            continue
        assert 200 <= response.status_int < 300, f"{method.upper()} {path}: {response.status_int} {response.text}"
        checked.add((method, path))
        missing = touched - set(entry["record_ids"])
        if not touched or missing:
            failures.append(f"{method.upper()} {path}: touched {sorted(touched)}, the entry names "
                            f"{entry['record_ids']}, missing {sorted(missing)}")
    assert not failures, "\n".join(failures)
    assert MUST_BE_CHECKED <= checked, sorted(MUST_BE_CHECKED - checked)
