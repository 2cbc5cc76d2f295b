"""PatientImportService built from a plain scope: validation and the content rule without a request."""

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.patients.imports.services import PatientImportService
from tests.common.scopes import plain_scope

ROWS = [{"given_name": "Ada", "family_name": "Quill", "birth_date": "1984-03-02"}, {"given_name": "Bram"}]


def test_an_invalid_row_holds_the_job_for_review_and_its_valid_rows_then_count_as_imported(world):
    clinic_id = world.clinic()
    with plain_scope(world, clinic_id) as scope:
        service = PatientImportService(scope.db, wait_seconds=0)
        job = service.submit(clinic_id, "json_array", ROWS, key_id=None)
        assert (job.status, job.row_count, job.counts["failed"]) == ("needs_review", 2, 1)
        assert {(error["row"], error["field"]) for error in job.row_errors} == {(2, "family_name"), (2, "birth_date")}
        assert service.get(job.id) is job
        assert service.run_valid_rows(clinic_id, job).status == "validating"
        with pytest.raises(Problem) as again:
            service.submit(clinic_id, "json_array", ROWS, key_id=None)
        assert again.value.code == "already_imported"
