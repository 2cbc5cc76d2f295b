"""The patients context's lookups for clinic staff (the portal's console): every patient of the clinic,
restricted ones too, found by id or by words of the name."""

import uuid

import pytest

from clinicrecords.clinics.services import open_clinic
from clinicrecords.patients.models import Patient
from clinicrecords.patients.services import find_patient, patient_ids_matching, patients_by_id, patients_named


@pytest.fixture
def patients(world):
    """A clinic with three patients, one of them restricted; yields (clinic id, {family name: id})."""
    clinic_id = world.clinic()
    people = [("Ada", "Quill", False), ("Ben", "Quillon", True), ("Cy", "Marsh", False)]
    with world.db() as db:
        open_clinic(db, clinic_id)
        rows = [Patient(id=uuid.uuid4(), given_name=given, family_name=family, restricted=restricted)
                for given, family, restricted in people]
        db.add_all(rows)
        db.flush()
        return clinic_id, {row.family_name: row.id for row in rows}


def _ids(db, statement):
    return set(db.scalars(statement))


def test_lookups_see_restricted_patients_and_name_words_narrow(world, patients):
    clinic_id, ids = patients
    with world.db() as db:
        open_clinic(db, clinic_id)
        assert find_patient(db, ids["Quillon"]).given_name == "Ben"
        assert find_patient(db, uuid.uuid4()) is None
        assert [p.family_name for p in patients_named(db, ["quill"])] == ["Quill", "Quillon"]
        assert [p.family_name for p in patients_named(db, ["quill", "ben"])] == ["Quillon"]
        assert [p.family_name for p in patients_named(db, ["quill"], limit=1)] == ["Quill"]
        assert set(patients_by_id(db, [ids["Marsh"], uuid.uuid4()])) == {ids["Marsh"]}
        assert patients_by_id(db, []) == {}


def test_patient_ids_matching_takes_an_id_words_of_the_name_or_nothing(world, patients):
    clinic_id, ids = patients
    with world.db() as db:
        open_clinic(db, clinic_id)
        assert _ids(db, patient_ids_matching(f" {ids['Marsh']} ")) == {ids["Marsh"]}
        assert _ids(db, patient_ids_matching("QUILL")) == {ids["Quill"], ids["Quillon"]}
        assert _ids(db, patient_ids_matching("nobody")) == set()
        assert _ids(db, patient_ids_matching("   ")) == set()
        # Only the first four words count.
        assert _ids(db, patient_ids_matching("a a a a zzz")) == {ids["Quill"], ids["Marsh"]}
