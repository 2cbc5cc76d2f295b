"""Payment advices: what an insurer says it paid. An advice is for staff to reconcile; it never changes a
claim, a payment or the books. Each is checked against the claims as they stand when it arrives."""

import uuid

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.api.problems import Problem, invalid
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.clock import now
from clinicrecords.errors import InvalidInput
from clinicrecords.insurance.claims import linked_insurer_id
from clinicrecords.insurance.interfaces import IPaymentAdvices
from clinicrecords.insurance.models import Claim, PaymentAdvice, PaymentAdviceAllocation
from clinicrecords.insurance.money import fits_minor_units, minor_units_message, plain_amount


class AdviceError(InvalidInput):
    """Bad input for a payment advice staff command; nothing was written."""


@implementer(IPaymentAdvices)
class PaymentAdviceService:
    """Advices sent by the calling key's organization to the scope's clinic."""

    def __init__(self, scope):
        self.db = scope.db
        self.clinic = scope.clinic
        self.workspace_id = scope.identity.workspace_id

    def create(self, data):
        clinic, workspace_id = self.clinic, self.workspace_id
        insurer_id = linked_insurer_id(self.db, workspace_id)
        if insurer_id is None:
            raise Problem("insurer_not_linked", "The clinic has not linked an insurer to this key's "
                          "organization, so it cannot send payment advices to this clinic.")
        errors = []
        if data["insurance_company_id"] != insurer_id:
            errors.append({"pointer": "/insurance_company_id",
                           "message": "Must be the insurer the clinic linked to your organization."})
        currency = data.get("currency", clinic.currency)
        if currency != clinic.currency:
            errors.append({"pointer": "/currency", "message": f"Must be the clinic's currency, {clinic.currency}."})
        if not fits_minor_units(data["amount"], clinic.currency):
            errors.append({"pointer": "/amount", "message": minor_units_message(clinic.currency)})
        allocations = data.get("allocations", [])
        errors += self._allocation_errors(clinic, insurer_id, data["amount"], allocations)
        if errors:
            raise invalid(errors)
        advice = PaymentAdvice(
            id=uuid.uuid4(), insurance_company_id=insurer_id, workspace_id=workspace_id,
            paid_on=data["paid_on"], amount=data["amount"], currency=clinic.currency, method=data["method"],
            reference=data.get("reference"), status="advised",
            allocations=[PaymentAdviceAllocation(position=n, claim_id=a["claim_id"], amount=a["amount"])
                         for n, a in enumerate(allocations)])
        self.db.add(advice)
        self.db.flush()
        return advice

    def _allocation_errors(self, clinic, insurer_id, total, allocations):
        errors, seen = [], set()
        # FOR SHARE: a staff payment recorded on one of these claims waits until this advice is committed,
        # so the balance it was checked against still holds when it commits. Advices never lock each other out.
        ids = {a["claim_id"] for a in allocations}
        claims = {c.id: c for c in self.db.scalars(
            select(Claim).where(Claim.id.in_(ids)).order_by(Claim.id).with_for_update(read=True))} if ids else {}
        for n, allocation in enumerate(allocations):
            claim_pointer, amount_pointer = f"/allocations/{n}/claim_id", f"/allocations/{n}/amount"
            claim = claims.get(allocation["claim_id"])
            if allocation["claim_id"] in seen:
                errors.append({"pointer": claim_pointer, "message": "Each claim may be allocated only once."})
            seen.add(allocation["claim_id"])
            if claim is None or claim.insurer_id != insurer_id:
                errors.append({"pointer": claim_pointer, "message": "Not a claim of this insurer."})
            elif claim.status != "awaiting_payment":
                errors.append({"pointer": claim_pointer, "message": "This claim is not awaiting payment."})
            elif allocation["amount"] > claim.outstanding:
                errors.append({"pointer": amount_pointer, "message": "More than this claim still owes "
                               f"({plain_amount(claim.outstanding, clinic.currency)} {clinic.currency})."})
            if not fits_minor_units(allocation["amount"], clinic.currency):
                errors.append({"pointer": amount_pointer, "message": minor_units_message(clinic.currency)})
        if allocations and sum(a["amount"] for a in allocations) > total:
            errors.append({"pointer": "/allocations", "message": "The allocations add up to more than amount."})
        return errors


def payment_advice_service_factory(context, request):
    return PaymentAdviceService(clinic_scope(context))


def _decide(db, advice_id, status, reason=None):
    advice = db.get(PaymentAdvice, advice_id, with_for_update=True)
    if advice is None:
        raise AdviceError(f"no payment advice {advice_id} in this clinic")
    if advice.status != "advised":
        raise AdviceError(f"the advice is already {advice.status}")
    advice.status = status
    advice.decline_reason = reason
    advice.decided_at = now()
    db.flush()
    return advice


def record_advice(db, advice_id):
    """Staff reconciled the advice in their own books; nothing here changes a claim or a payment."""
    return _decide(db, advice_id, "recorded")


def decline_advice(db, advice_id, reason=None):
    if reason is not None and not 1 <= len(reason.strip()) <= 500:
        raise AdviceError("--reason must be 1 to 500 characters")
    return _decide(db, advice_id, "declined", reason.strip() if reason else None)
