"""CareProviderService built from a plain scope: no request, a real clinic's session."""

import uuid

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.care_providers.services import CareProviderService, care_provider_service_factory
from clinicrecords.errors import InvalidInput
from tests.common.scopes import ClinicNode, a_patient, cursors, plain_scope

APP, OTHER_APP = uuid.uuid4(), uuid.uuid4()


def test_an_app_manages_its_own_contacts_of_visible_patients_only(world):
    with plain_scope(world, world.clinic()) as scope:
        service = care_provider_service_factory(ClinicNode(scope), None)
        assert service.db is scope.db
        patient_id, hidden_id = a_patient(scope.db), a_patient(scope.db, restricted=True)
        contact = service.add({"patient_id": patient_id, "type": "pcp", "name": "Dr Lee"}, APP)
        assert service.get(contact.id) is contact and contact.source == "api"
        assert service.update(contact, {"phone": "+1 555 0142"}, APP).phone == "+1 555 0142"
        with pytest.raises(Problem) as refused:
            service.delete(contact, OTHER_APP)
        assert refused.value.code == "care_provider_clinic_managed"
        with pytest.raises(Problem) as absent:
            service.add({"patient_id": hidden_id, "type": "pcp", "name": "Dr Lee"}, APP)
        assert absent.value.code == "invalid_request"
        hidden = service.record_for_clinic(hidden_id, "dentist", "Dr Molar")
        assert service.get(hidden.id) is None
        assert [c.id for c in service.list({"limit": 10}, cursors(world)).items] == [contact.id]


def test_staff_may_not_name_a_patient_the_clinic_does_not_have(world):
    with plain_scope(world, world.clinic()) as scope:
        with pytest.raises(InvalidInput):
            CareProviderService(scope.db).record_for_clinic(uuid.uuid4(), "pcp", "Dr Lee")
