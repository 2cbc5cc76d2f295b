"""Sandbox insurance: payers (enabled and disabled), coverages, claims, and the workspace's insurer link."""

from decimal import Decimal

from clinicrecords.insurance.models import Claim, Coverage, InsurerLink
from clinicrecords.insurance.payers import add_payer
from clinicrecords.insurance.schemas import SANDBOX_CLAIM_IDS, SANDBOX_COVERAGE_IDS, SANDBOX_PAYER_IDS
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS

_PAYERS = [
    # (name, primary payer id, coverage types, operating states, enabled)
    ("Northwind Health Assurance", "NWH01", ["medical", "pharmacy"], ["CA", "NY", "TX"], True),
    ("Société Mutuelle de Santé", "SMS77", ["medical"], ["NY"], True),
    ("Bluegate Dental Plan", "BGD12", ["dental"], ["CA"], True),
    ("Legacy Care Plan", "LCP09", ["medical"], ["TX"], False),
]

# (claim, payer, patient, amount, still owed): each against a confirmed, active coverage, as claims must be.
_CLAIMS = [
    (0, 0, 0, Decimal("250.00"), Decimal("250.00")),
    (1, 0, 0, Decimal("120.50"), Decimal("40.50")),
    (2, 0, 0, Decimal("80.00"), Decimal("0.00")),
    (3, 2, 3, Decimal("60.00"), Decimal("60.00")),
]


def seed_insurance(db, clinic):
    for payer_id, (name, primary, types, states, enabled) in zip(SANDBOX_PAYER_IDS, _PAYERS, strict=True):
        add_payer(db, name, primary, types, states, enabled=enabled, payer_id=payer_id)
    db.add(Coverage(id=SANDBOX_COVERAGE_IDS[0], patient_id=SANDBOX_PATIENT_IDS[0], payer_id=SANDBOX_PAYER_IDS[0],
                    member_id="NWH-100-2231", group_number="GRP-1001", subscriber_relationship="self",
                    confirmation_status="confirmed", coverage_active=True))
    db.add(Coverage(id=SANDBOX_COVERAGE_IDS[1], patient_id=SANDBOX_PATIENT_IDS[2], payer_id=SANDBOX_PAYER_IDS[2],
                    member_id="BGD-77-0192", subscriber_relationship="child", subscriber_name="Ada Quill",
                    confirmation_status="unconfirmed", coverage_active=False))
    db.add(Coverage(id=SANDBOX_COVERAGE_IDS[2], patient_id=SANDBOX_PATIENT_IDS[3], payer_id=SANDBOX_PAYER_IDS[2],
                    member_id="BGD-77-0415", subscriber_relationship="child", subscriber_name="Ada Quill",
                    confirmation_status="confirmed", coverage_active=True))
    for claim, payer, patient, amount, owed in _CLAIMS:
        db.add(Claim(id=SANDBOX_CLAIM_IDS[claim], insurer_id=SANDBOX_PAYER_IDS[payer],
                     patient_id=SANDBOX_PATIENT_IDS[patient], amount=amount, outstanding=owed,
                     status="awaiting_payment" if owed else "paid"))
    if clinic.sandbox_of_workspace_id is not None:
        # The sandbox's own workspace is the insurer Northwind, so the payment advice example works as-is.
        db.add(InsurerLink(workspace_id=clinic.sandbox_of_workspace_id, payer_id=SANDBOX_PAYER_IDS[0]))
    db.flush()
