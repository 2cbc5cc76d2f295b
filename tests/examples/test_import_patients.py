"""Example (c): examples/import_patients.py with its sample NDJSON file, against the real service."""

import json

from tests.examples.conftest import EXAMPLES, run_example

SAMPLE_ROWS = [json.loads(line) for line in (EXAMPLES / "data" / "patients.ndjson").read_text().splitlines()]
INVALID_ROWS = {3: "birth_date", 5: "allergies", 6: "family_name", 7: "email"}


def _patients(testapp, clinic_id, key):
    return testapp.get(f"/v1/clinics/{clinic_id}/patients", {"limit": 100},
                       headers={"Authorization": f"Bearer {key}"}).json["data"]


def test_row_errors_then_the_valid_rows_run_then_the_result(world, testapp, served):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    result = run_example("import_patients.py", served, key)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "importing 8 rows" in out and ": needs_review" in out
    for row, field in INVALID_ROWS.items():
        assert f"  row {row} {field}: " in out
    assert "penicillin" not in out and "1985-13-40" not in out  # errors never repeat the failing value
    assert "valid rows run: succeeded" in out
    assert "result: succeeded; created 4, flagged_duplicate 0, skipped_already_imported 0, failed 4" in out

    imported = {p["external_id"]: p for p in _patients(testapp, clinic_id, key)}
    valid = [row for n, row in enumerate(SAMPLE_ROWS, 1) if n not in INVALID_ROWS]
    assert set(imported) == {row["external_id"] for row in valid}
    for n, row in enumerate(SAMPLE_ROWS, 1):
        if n not in INVALID_ROWS:
            patient_id = imported[row["external_id"]]["id"]
            assert f"  row {n} {row['given_name']} {row['family_name']}: patient {patient_id}" in out

    again = run_example("import_patients.py", served, key)  # a retry: already imported, nothing written twice
    assert again.returncode == 0, again.stderr
    assert "already imported: this content is import" in again.stdout and "result: succeeded" in again.stdout
    assert len(_patients(testapp, clinic_id, key)) == 4


def test_validate_only_writes_nothing(world, testapp, served):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    result = run_example("import_patients.py", served, key, "--no-run-valid-rows")
    assert result.returncode == 0, result.stderr
    assert "result: needs_review; created 0" in result.stdout and "valid rows run" not in result.stdout
    assert _patients(testapp, clinic_id, key) == []


def test_an_organization_key_cannot_import(world, served):
    workspace_id, _ = world.workspace()
    result = run_example("import_patients.py", served, world.key(workspace_id=workspace_id, mode="test"))
    assert result.returncode == 1 and "failed: not_found" in result.stderr and "request req_" in result.stderr
