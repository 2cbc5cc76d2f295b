"""Sandbox patients (fixed ids, fictional people)."""

import datetime

from clinicrecords.patients.models import Patient
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS

_PEOPLE = [
    ("Ada", "Quill", datetime.date(1984, 3, 2), "female"),
    ("Bram", "Holloway", datetime.date(1957, 11, 19), "male"),
    ("Chidi", "Nwosu", datetime.date(1999, 7, 30), "male"),
    ("Dana", "Ferreira", datetime.date(2012, 1, 8), "female"),
    ("Eli", "Marchetti", datetime.date(1971, 5, 24), "other"),
]


def seed_patients(db, clinic):
    for patient_id, (given, family, born, sex) in zip(SANDBOX_PATIENT_IDS, _PEOPLE, strict=True):
        db.add(Patient(id=patient_id, given_name=given, family_name=family, birth_date=born, sex=sex,
                       external_id=f"SBX-{family.upper()}"))
