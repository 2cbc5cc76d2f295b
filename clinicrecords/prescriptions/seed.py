"""Sandbox prescriptions (fixed ids) for the sandbox patients."""

import datetime

from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.prescriptions.models import Prescription
from clinicrecords.prescriptions.schemas import SANDBOX_PRESCRIPTION_IDS

_PRESCRIPTIONS = [
    (0, "Amoxicillin 500 mg capsule", "1 capsule", "three times daily", "completed", "eprescribe",
     datetime.date(2025, 2, 3), datetime.date(2025, 2, 3), datetime.date(2025, 2, 10)),
    (1, "Lisinopril 10 mg tablet", "1 tablet", "once daily", "active", "eprescribe",
     datetime.date(2025, 6, 14), datetime.date(2025, 6, 14), None),
    (1, "Metformin 500 mg tablet", "1 tablet", "twice daily with meals", "active", "clinic",
     datetime.date(2024, 11, 2), datetime.date(2024, 11, 2), None),
]


def seed_prescriptions(db, clinic):
    db.flush()  # the patients they belong to
    for prescription_id, (patient, drug, dose, frequency, status, source, written, start, end) in zip(
            SANDBOX_PRESCRIPTION_IDS, _PRESCRIPTIONS, strict=True):
        db.add(Prescription(id=prescription_id, patient_id=SANDBOX_PATIENT_IDS[patient], drug=drug, dose=dose,
                            frequency=frequency, status=status, source=source, written_on=written,
                            start_date=start, end_date=end))
    db.flush()
