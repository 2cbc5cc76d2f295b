"""AppointmentService built from a plain scope: no request, a real clinic's session and a plain clinic."""

import datetime
import uuid
from types import SimpleNamespace

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.providers.services import ProviderService
from clinicrecords.scheduling import staff
from clinicrecords.scheduling.services import AppointmentService, appointment_service_factory
from tests.common.scopes import ClinicNode, a_patient, cursors, plain_scope

APP, OTHER_APP = uuid.uuid4(), uuid.uuid4()
# A Monday far ahead, 10:00 in the clinic's zone (UTC here): always in the future, always aligned.
MONDAY_TEN = datetime.datetime(2099, 6, 1, 10, tzinfo=datetime.UTC)


def _clinician(db, family_name, specialties=()):
    provider = ProviderService(db).add("Ada", family_name, "physician", specialties=list(specialties))
    staff.set_hours(db, provider.id, [0], datetime.time(9), datetime.time(17))
    return provider.id


def test_books_any_eligible_clinician_in_name_order_then_none_is_free(world):
    with plain_scope(world, world.clinic()) as scope:
        service = AppointmentService(scope.db, SimpleNamespace(timezone="UTC"))
        ash, zed = _clinician(scope.db, "Ash"), _clinician(scope.db, "Zed", ["cardiology"])
        patient_id = a_patient(scope.db)
        booking = {"patient_id": patient_id, "starts_at": MONDAY_TEN}
        assert service.book(booking, APP).provider_id == ash
        assert service.book(booking, APP).provider_id == zed
        with pytest.raises(Problem) as none_free:
            service.book(booking, APP)
        assert none_free.value.code == "no_provider_available"
        later = {**booking, "starts_at": MONDAY_TEN + datetime.timedelta(hours=1), "specialty": "cardiology"}
        cardiology = service.book(later, APP)
        assert cardiology.provider_id == zed and service.get(cardiology.id) is cardiology
        assert len(service.list({"limit": 10, "provider_id": zed}, cursors(world)).items) == 2
        with pytest.raises(Problem) as managed:
            service.cancel(cardiology, OTHER_APP)
        assert managed.value.code == "appointment_clinic_managed"
        assert service.cancel(cardiology, APP).status == "cancelled"


def test_the_factory_takes_the_clinic_from_the_scope_and_refuses_a_restricted_patient(world):
    with plain_scope(world, world.clinic()) as scope:
        service = appointment_service_factory(ClinicNode(scope), None)
        assert (service.db, service.clinic) == (scope.db, scope.clinic)
        _clinician(scope.db, "Ash")
        with pytest.raises(Problem) as refused:
            service.book({"patient_id": a_patient(scope.db, restricted=True), "starts_at": MONDAY_TEN}, APP)
        assert refused.value.errors == [{"pointer": "/patient_id",
                                         "message": "No patient with this id in this clinic."}]
