"""Claims (created by staff) and insurer links: the clinic's side that payment advices are checked against."""

import uuid
from decimal import Decimal, InvalidOperation

from sqlalchemy import select

from clinicrecords.access.services import get_workspace
from clinicrecords.errors import InvalidInput
from clinicrecords.insurance.models import Claim, Coverage, InsurerLink
from clinicrecords.insurance.money import MAX_AMOUNT, fits_minor_units, minor_units_message
from clinicrecords.insurance.payers import get_payer
from clinicrecords.patients.services import find_patient


class ClaimError(InvalidInput):
    """Bad input for a claim or an insurer link; nothing was written."""


def parse_amount(text, currency, name="--amount"):
    try:
        amount = Decimal(text)
    except (InvalidOperation, TypeError):
        raise ClaimError(f"{name}: not a number: {text!r}") from None
    if not amount.is_finite() or amount <= 0 or amount > MAX_AMOUNT:
        raise ClaimError(f"{name} must be greater than 0 and at most {MAX_AMOUNT}")
    if not fits_minor_units(amount, currency):
        raise ClaimError(f"{name}: {minor_units_message(currency)}")
    return amount


def _require_usable_coverage(db, patient_id, insurer_id):
    """Spec, Coverage: only a coverage staff confirmed and activated can be used for claims."""
    coverage = db.scalar(select(Coverage).where(Coverage.patient_id == patient_id, Coverage.payer_id == insurer_id))
    if coverage is None:
        raise ClaimError(f"patient {patient_id} has no coverage with payer {insurer_id}: add one, then confirm "
                         "and activate it (`coverage confirm`, `coverage activate`)")
    if coverage.confirmation_status != "confirmed":
        raise ClaimError(f"coverage {coverage.id} is not confirmed: run `coverage confirm`, then `coverage activate`")
    if not coverage.coverage_active:
        raise ClaimError(f"coverage {coverage.id} is confirmed but not active: run `coverage activate`")


def create_claim(db, clinic, insurer_id, patient_id, amount, claim_id=None):
    get_payer(db, insurer_id)
    if find_patient(db, patient_id) is None:
        raise ClaimError(f"no patient {patient_id} in this clinic")
    amount = parse_amount(amount, clinic.currency)
    _require_usable_coverage(db, patient_id, insurer_id)
    claim = Claim(id=claim_id or uuid.uuid4(), insurer_id=insurer_id, patient_id=patient_id, amount=amount,
                  outstanding=amount, status="awaiting_payment")
    db.add(claim)
    db.flush()
    return claim


def pay_claim(db, clinic, claim_id, amount):
    """Staff record a payment received on a claim: what it still owes goes down."""
    claim = db.get(Claim, claim_id, with_for_update=True)
    if claim is None:
        raise ClaimError(f"no claim {claim_id} in this clinic")
    amount = parse_amount(amount, clinic.currency)
    if amount > claim.outstanding:
        raise ClaimError(f"--amount is more than the claim still owes ({claim.outstanding})")
    claim.outstanding -= amount
    if claim.outstanding == 0:
        claim.status = "paid"
    db.flush()
    return claim


def link_insurer(db, workspace_id, insurer_id):
    """Link an outside organization's workspace to one insurer of this clinic; linking again replaces it."""
    get_workspace(db, workspace_id)
    get_payer(db, insurer_id)
    link = db.get(InsurerLink, workspace_id)
    if link is None:
        link = InsurerLink(workspace_id=workspace_id, payer_id=insurer_id)
        db.add(link)
    link.payer_id = insurer_id
    db.flush()
    return link


def linked_insurer_id(db, workspace_id):
    if workspace_id is None:
        return None
    link = db.get(InsurerLink, workspace_id)
    return link.payer_id if link else None
