"""Sandbox dispensings, dated relative to the sandbox's creation; the workspace is enrolled for patients 1-2."""

import datetime
from decimal import Decimal

from clinicrecords import clock
from clinicrecords.dispensing.models import DispensingEnrollment
from clinicrecords.dispensing.services import record_dispensing
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.sandbox.interfaces import sandbox_id

ATORVASTATIN_GTIN = "00312345678906"


def seed_dispensing(db, clinic):
    now = clock.now().replace(microsecond=0)
    ada, bram, chidi = SANDBOX_PATIENT_IDS[:3]
    records = [
        (1, ada, "Atorvastatin 20 mg tablets", "atorvastatin", "Lipitor", [ATORVASTATIN_GTIN], 30, 25, None),
        (2, ada, "Amoxicillin 500 mg capsules", "amoxicillin", None, [], 10, 20, None),
        (3, ada, "Atorvastatin 20 mg tablets", "atorvastatin", "Lipitor", [ATORVASTATIN_GTIN], 30, 6,
         ("lost", "Patient reports the bottle was lost while travelling.")),
        (4, bram, "Metformin 500 mg tablets", "metformin", None, [], 28, 3, None),
        (5, chidi, "Salbutamol 100 mcg inhaler", "salbutamol", "Ventolin", [], 30, 2, None),
    ]
    for n, patient, name, generic, brand, gtins, days, days_ago, reason in records:
        record_dispensing(db, patient, name, days, generic_name=generic, brand_name=brand, gtins=gtins,
                          dispensed_at=now - datetime.timedelta(days=days_ago),
                          reason_code=reason[0] if reason else None, reason_text=reason[1] if reason else None,
                          price=Decimal("12.40"), pharmacist_name="Sandbox Pharmacist",
                          dispensing_id=sandbox_id(f"dispensing:{n}"))
    if clinic.sandbox_of_workspace_id is not None:
        for patient in (ada, bram):
            db.add(DispensingEnrollment(workspace_id=clinic.sandbox_of_workspace_id, patient_id=patient))
    db.flush()
