"""Sandbox clinical records (fixed ids, fictional). The request-body EXAMPLEs point at these."""

import datetime

from clinicrecords.clinical.models import Allergy, Condition, MedicationStatement, Referral
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.review.services import add_pending_submission
from clinicrecords.sandbox.interfaces import sandbox_id

ADA, BRAM, CHIDI = SANDBOX_PATIENT_IDS[:3]
# The seeded pending submission names no real key: a placeholder id, the same in every sandbox.
SEED_KEY_ID = sandbox_id("key:seed")


def seed_clinical(db, clinic):
    # In a workspace's sandbox, the seeded referrals and submission were "sent" by that workspace.
    sender = clinic.sandbox_of_workspace_id or clinic.id
    db.add_all([
        Allergy(id=sandbox_id("allergy:1"), patient_id=ADA, entry="recorded", substance_text="Penicillin G",
                substance_rxnorm="7980", clinical_status="active", category=["medication"], criticality="high",
                type="allergy", reactions=[{"manifestation": ["urticaria"], "description": "Hives after a dose"}],
                onset_date=datetime.date(2009, 5, 1)),
        Allergy(id=sandbox_id("allergy:2"), patient_id=ADA, entry="legacy_text", substance_text="Sulfa drugs",
                clinical_status="active", category=[], reactions=[]),
        Allergy(id=sandbox_id("allergy:3"), patient_id=CHIDI, entry="no_known_allergies", clinical_status="active",
                category=[], reactions=[]),
        Condition(id=sandbox_id("condition:1"), patient_id=ADA, icd10_code="E11.9",
                  display="Type 2 diabetes mellitus without complications", clinical_status="active",
                  onset_date=datetime.date(2016, 9, 12)),
        Condition(id=sandbox_id("condition:2"), patient_id=BRAM, icd10_code="J45.909",
                  display="Unspecified asthma, uncomplicated", clinical_status="active", accepted_by="automatic",
                  verification_status="unconfirmed", origin_assistant_name="Intake Assistant"),
        MedicationStatement(id=sandbox_id("medication_statement:1"), patient_id=ADA, medication_text="Metformin",
                            medication_rxnorm="6809", status="active", dosage_text="500 mg twice a day",
                            effective_start=datetime.date(2016, 10, 1)),
        Referral(id=sandbox_id("referral:1"), patient_id=BRAM, status="accepted", reason_code="I10",
                 reason_text="Blood pressure review", specialty="Cardiology", priority="routine",
                 sender_owner_id=sender, accepted_by="clinic",
                 acted_at=datetime.datetime(2024, 1, 5, tzinfo=datetime.UTC)),
        Referral(id=sandbox_id("referral:2"), patient_id=ADA, status="received", reason_code="M54.50",
                 reason_text="Low back pain", specialty="Physiotherapy", priority="routine", sender_owner_id=sender,
                 accepted_by="clinic"),
    ])
    payload = {"patient_id": str(BRAM), "substance": {"text": "Peanut"}, "category": ["food"],
               "criticality": "high", "type": "allergy"}
    add_pending_submission(
        db, submission_id=sandbox_id("submission:1"), patient_id=BRAM, resource_type="allergy",
        target_id=sandbox_id("allergy:pending-1"), payload=payload, client_reference="seed-allergy-pending-1",
        origin_assistant_name="Intake Assistant", api_key_id=SEED_KEY_ID,
        workspace_id=clinic.sandbox_of_workspace_id, sender_owner_id=sender)
