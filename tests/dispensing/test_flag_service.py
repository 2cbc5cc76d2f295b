"""The dispensing flag service built from plain values (no request), over a real sandbox clinic."""

import datetime

from clinicrecords.dispensing.services import DispensingFlagService
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.common.scopes import clinic_session, plain_cursors
from tests.insurance.helpers import restrict

ADA, BRAM = SANDBOX_PATIENT_IDS[:2]


def _window():
    today = datetime.datetime.now(datetime.UTC).date()
    return {"from_": today - datetime.timedelta(days=60), "to": today, "limit": 100}


def _patients(world, registry, clinic_id, workspace_id):
    with clinic_session(world, clinic_id) as (db, _):
        page = DispensingFlagService(db, workspace_id, plain_cursors(registry)).list(_window())
        return sorted({flag.patient_id for flag in page.items})


def test_flags_of_the_workspace_s_visible_enrollees_only(world, registry):
    workspace_id, clinic_id = world.workspace()
    assert _patients(world, registry, clinic_id, workspace_id) == sorted([ADA, BRAM])
    assert _patients(world, registry, clinic_id, None) == []  # a clinic-owned key enrolls no one
    restrict(world, clinic_id, ADA)
    assert _patients(world, registry, clinic_id, workspace_id) == [BRAM]
