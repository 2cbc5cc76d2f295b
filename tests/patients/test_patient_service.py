"""PatientService built from a plain scope: no request, a real clinic's session."""

from sqlalchemy import event, inspect, select

from clinicrecords.patients.models import Patient
from clinicrecords.patients.services import (
    PatientService,
    is_visible_patient,
    patient_exists,
    patient_service_factory,
    set_restricted,
)
from tests.common.scopes import ClinicNode, cursors, plain_scope

ADA = {"given_name": "Ada", "family_name": "Quill"}


def test_creates_reads_and_pages_without_a_request(world):
    clinic_id = world.clinic()
    with plain_scope(world, clinic_id) as scope:
        service = PatientService(scope.db)
        first = service.create(ADA)
        second = service.create({**ADA, "given_name": "Bram"})
        assert service.get(first.id) is first
        page = service.list({"limit": 1}, cursors(world))
        assert page.has_more and len(page.items) == 1
        rest = service.list({"limit": 1, "starting_after": page.next_cursor}, cursors(world))
        assert {page.items[0].id, rest.items[0].id} == {first.id, second.id} and not rest.has_more


def test_a_restricted_patient_is_absent_for_the_api_but_exists_for_staff(world):
    clinic_id = world.clinic()
    with plain_scope(world, clinic_id) as scope:
        service = PatientService(scope.db)
        patient = service.create(ADA)
        assert set_restricted(scope.db, patient.id, True) is patient
        assert service.get(patient.id) is None
        assert not is_visible_patient(scope.db, patient.id)
        assert patient_exists(scope.db, patient.id)
        assert service.list({"limit": 10}, cursors(world)).items == []
        assert set_restricted(scope.db, patient.id, False).restricted is False
        assert is_visible_patient(scope.db, patient.id)


def test_the_factory_builds_it_from_the_scope_of_the_context(world):
    with plain_scope(world, world.clinic()) as scope:
        service = patient_service_factory(ClinicNode(scope), None)
        assert isinstance(service, PatientService) and service.db is scope.db


def test_a_patient_written_is_whole_from_its_own_statement(world):
    """The INSERT and the UPDATE read back what the server set (created_at, updated_at): no SELECT after them,
    and nothing of the patient is left to load."""
    with plain_scope(world, world.clinic()) as scope:
        service = PatientService(scope.db)
        sent = []
        connection = scope.db.connection()
        event.listen(connection, "before_cursor_execute", lambda *args: sent.append(args[2].split()[0]))
        patient = service.create(ADA)
        assert sent == ["INSERT"] and not inspect(patient).expired_attributes
        assert patient.created_at is not None and patient.updated_at == patient.created_at
        service.update(patient, {"family_name": "Quillon"})
        assert sent == ["INSERT", "UPDATE"] and not inspect(patient).expired_attributes
        stored = scope.db.execute(select(Patient.family_name, Patient.updated_at).where(Patient.id == patient.id))
        assert stored.one() == ("Quillon", patient.updated_at)
