"""The clinical context's services: the factories of its reads and sends, the clinic's moves of a referral, and
what a bulk export reads of the chart items.

Items of a restricted patient are invisible to every API key: absent from lists, 404 when read or changed,
and a send naming the patient is refused like one naming no patient
(docs/decisions/0012-clinical-items-review-queue.md, "Restricted patients"). The reads are in `items`, the sends
in `proposals`; the kinds (`kinds`) build on both.
"""

from sqlalchemy import select

from clinicrecords.clinical import representations, staff, terminology
from clinicrecords.clinical.items import ItemService
from clinicrecords.clinical.kinds import KINDS
from clinicrecords.clinical.models import Allergy, Referral
from clinicrecords.clinical.proposals import ProposalService
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.patients.services import visible_for_export
from clinicrecords.review.interfaces import ISubmissionService

def referral_of(db, referral_id):
    """The referral (whatever its patient), or None: what the clinic's booking of it reads."""
    return db.get(Referral, referral_id)


def item_service_factory(model):
    """The reads of one kind's items (`model`: its kind's, clinical/kinds.py)."""
    def factory(context, request):
        return ItemService(clinic_scope(context).db, model)
    return factory


def proposal_service_factory(context, request):
    return ProposalService(clinic_scope(context), request.registry[terminology.RXNORM],
                           request.find_service(ISubmissionService, context=context))


# The statuses the clinic moves a referral to (operator command, test helper).
REFERRAL_STATUSES = sorted({status for targets in staff.REFERRAL_TRANSITIONS.values() for status in targets})


def act_on_referral_as_staff(db, referral_id, status, reason=None):
    """The clinic moves a referral: what `referral act` prints and the sandbox's test helper answers."""
    referral = staff.act_on_referral(db, referral_id, status, reason)
    document = representations.referral_json(referral, None)
    document["status_reason"] = referral.status_reason
    return {"referral": document}


def chart_kinds_for_export():
    """Each chart kind a bulk export writes, in the kinds' order: (resource_type, its FHIR type, the read
    permission that shows it, the clinic collection of its single reads)."""
    return tuple((kind.resource_type, kind.fhir_type, kind.read_permission, kind.collection_name) for kind in KINDS)


def chart_rows_for_export(resource_type, since=None):
    """The rows of one kind's items a bulk export writes (`resource_type`: "allergy", "condition",
    "medication_statement", "referral"), oldest first: those of patients the API may see, as the reads; allergy
    names from the clinic's plain list (legacy text) have no id and are left out
    (docs/decisions/0099-bulk-export-file-contents.md)."""
    [model] = [kind.model for kind in KINDS if kind.resource_type == resource_type]
    statement = visible_for_export(select(*model.__table__.columns), model.patient_id, model.updated_at, since)
    if model is Allergy:
        statement = statement.where(Allergy.entry != "legacy_text")
    return statement.order_by(model.created_at, model.id)
