"""One staff action per context: the operator command and the sandbox's test helper call the same function in the
owning context's `services` and answer the same document. The functions need a session and the clinic, no request."""

import pytest

from clinicrecords.clinics.services import open_clinic
from clinicrecords.encounters.services import EncounterStaff, staff_result
from clinicrecords.errors import InvalidInput
from clinicrecords.insurance.services import activate_coverage_as_staff, confirm_coverage_as_staff
from clinicrecords.inventory.services import (mark_till_stale_as_staff, network_projection, report_till_as_staff,
                                              set_stock_as_staff)
from clinicrecords.sandbox.interfaces import sandbox_id
from clinicrecords.settings import app_settings
from tests.common.cli import ok

PARACETAMOL = sandbox_id("inventory-item:paracetamol-500")
COVERAGE = sandbox_id("coverage:2")  # seeded unconfirmed


def _sandbox(world):
    return world.workspace()[1]


def _helper(testapp, world, clinic_id, path, body=None):
    workspace_id = _workspace_of(world, clinic_id)
    headers = {"Authorization": f"Bearer {world.key(workspace_id=workspace_id, mode='test')}"}
    answer = testapp.post_json(f"/v1/test_helpers/clinics/{clinic_id}/{path}", body or {}, headers=headers)
    return answer.json["data"]["result"]


def _workspace_of(world, clinic_id):
    with world.db() as db:
        return open_clinic(db, clinic_id).sandbox_of_workspace_id


def test_the_helper_answers_what_the_operator_command_prints(testapp, world):
    by_cli, by_helper = _sandbox(world), _sandbox(world)
    printed = ok("stock", "set", "--clinic", by_cli, PARACETAMOL, "--quantity", "0")
    answered = _helper(testapp, world, by_helper, "stock/set", {"item_id": str(PARACETAMOL), "quantity": 0})
    assert answered == printed == {"item_id": str(PARACETAMOL), "quantity": 0, "band": "out"}
    printed = ok("coverage", "confirm", "--clinic", by_cli, COVERAGE)
    assert _helper(testapp, world, by_helper, "coverages/confirm", {"coverage_id": str(COVERAGE)}) == printed
    printed = ok("encounter", "sign", "--clinic", by_cli, sandbox_id("encounter:3"))
    answered = _helper(testapp, world, by_helper, "encounters/sign", {"encounter_id": str(sandbox_id("encounter:3"))})
    assert answered == printed and printed["status"] == "completed"


def test_staff_actions_run_on_a_plain_session_bound_to_the_clinic(world):
    clinic_id = _sandbox(world)
    with world.db() as db:
        clinic = open_clinic(db, clinic_id)
        settings, projection = app_settings(world.registry).inventory, network_projection(world.registry)
        assert set_stock_as_staff(db, projection, clinic, PARACETAMOL, 3, settings)["quantity"] == 3
        assert report_till_as_staff(db, projection, clinic, settings)["stale"] is False
        assert mark_till_stale_as_staff(db, projection, clinic, settings) == {
            "clinic_id": str(clinic_id), "stale": True, "changed": True}
        with pytest.raises(InvalidInput, match="only a confirmed coverage"):
            activate_coverage_as_staff(db, COVERAGE)
        assert confirm_coverage_as_staff(db, COVERAGE)["confirmation_status"] == "confirmed"
        touched = staff_result(EncounterStaff(db).touch(sandbox_id("encounter:app-draft-1")))
        assert touched["touched"] is True and touched["signed"] is False
    with world.db() as db:  # committed: a second session sees what the staff actions wrote
        open_clinic(db, clinic_id)
        assert staff_result(EncounterStaff(db).sign(sandbox_id("encounter:app-draft-1")))["status"] == "completed"
