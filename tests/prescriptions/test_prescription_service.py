"""PrescriptionService built from a plain scope: no request, a real clinic's session."""

import uuid

import pytest

from clinicrecords.errors import InvalidInput
from clinicrecords.prescriptions.services import PrescriptionService, prescription_service_factory
from tests.common.scopes import ClinicNode, a_patient, cursors, plain_scope


def test_staff_record_prescriptions_and_the_api_reads_only_those_of_visible_patients(world):
    with plain_scope(world, world.clinic()) as scope:
        service = prescription_service_factory(ClinicNode(scope), None)
        assert service.db is scope.db
        seen = service.add(a_patient(scope.db), "Amoxicillin", "500 mg", "three times a day")
        hidden = service.add(a_patient(scope.db, restricted=True), "Ibuprofen", "200 mg", "as needed")
        assert service.get(seen.id) is seen and service.get(hidden.id) is None
        assert [p.id for p in service.list({"limit": 10}, cursors(world)).items] == [seen.id]
        assert service.list({"limit": 10, "status": "stopped"}, cursors(world)).items == []


def test_a_prescription_for_no_patient_is_refused(world):
    with plain_scope(world, world.clinic()) as scope:
        with pytest.raises(InvalidInput):
            PrescriptionService(scope.db).add(uuid.uuid4(), "Amoxicillin", "500 mg", "daily")
