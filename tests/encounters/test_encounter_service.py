"""EncounterService built from a plain scope: no request, a real clinic's session."""

import datetime
import uuid

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.encounters.services import EncounterStaff, encounter_service_factory
from clinicrecords.providers.services import ProviderService
from tests.common.scopes import ClinicNode, a_patient, cursors, plain_scope

APP = uuid.uuid4()
START = datetime.datetime(2026, 3, 2, 9, tzinfo=datetime.UTC)


def _draft(patient_id, **fields):
    return {"patient_id": patient_id, "encounter_class": "virtual", "start": START, **fields}


def test_an_app_opens_and_adjusts_its_draft_until_staff_touch_it(world):
    with plain_scope(world, world.clinic()) as scope:
        service = encounter_service_factory(ClinicNode(scope), None)
        assert service.db is scope.db
        provider = ProviderService(scope.db).add("Ada", "Zed", "physician")
        draft = service.open_draft(_draft(a_patient(scope.db), provider_id=provider.id), APP)
        assert service.get(draft.id) is draft and draft.status == "draft"
        later = START + datetime.timedelta(minutes=20)
        assert service.update_draft(draft, {"end": later}, APP).end_at == later
        staff = EncounterStaff(scope.db)
        staff.touch(draft.id)
        with pytest.raises(Problem) as refused:
            service.update_draft(draft, {"reason": "Check-up"}, APP)
        assert refused.value.code == "note_not_editable"
        assert staff.sign(draft.id).status == "completed"
        assert [e.id for e in service.list({"limit": 10}, cursors(world)).items] == [draft.id]
        staff.mark_sensitive(draft.id)
        assert service.get(draft.id) is None


def test_a_draft_naming_an_absent_clinician_or_a_restricted_patient_is_refused(world):
    with plain_scope(world, world.clinic()) as scope:
        service = encounter_service_factory(ClinicNode(scope), None)
        with pytest.raises(Problem) as refused:
            service.open_draft(_draft(a_patient(scope.db, restricted=True), provider_id=uuid.uuid4()), APP)
        assert {error["pointer"] for error in refused.value.errors} == {"/patient_id", "/provider_id"}
