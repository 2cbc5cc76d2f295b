"""Reading chart items, and proposing new items and changes (which become submissions for review).

Items of a restricted patient are invisible to every API key: absent from lists, 404 when read or changed,
and a send naming the patient is refused like one naming no patient (docs/decisions.md).
"""

import datetime
import functools
import operator
import uuid

from sqlalchemy import Uuid, bindparam, select
from zope.interface import implementer

from clinicrecords.access.services import sent_by
from clinicrecords.api.merge_patch import merge_patch
from clinicrecords.api.pagination import PrebuiltPages, keyset_page
from clinicrecords.api.problems import invalid
from clinicrecords.api.validation import load_body
from clinicrecords.clinical import representations, staff, terminology
from clinicrecords.clinical.interfaces import IChartItems, IProposalService
from clinicrecords.clinical.models import Allergy, Referral
from clinicrecords.clinical.schemas import RETRACTED
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.db.prebuilt import Prebuilt
from clinicrecords.patients.services import is_visible_patient, visible, visible_for_export
from clinicrecords.review.interfaces import ISubmissionService, Revision

_SENT_FIELDS = ("client_reference", "origin_assistant_name")


def jsonable(value):
    if isinstance(value, dict):
        return {name: jsonable(item) for name, item in value.items()}
    if isinstance(value, list):
        return [jsonable(item) for item in value]
    if isinstance(value, (datetime.date, uuid.UUID)):
        return str(value)
    return value


@implementer(IChartItems)
class ItemService:
    """Reads of one kind of chart item for API callers."""

    def __init__(self, db, model):
        self.db = db
        self.model = model

    def get(self, item_id):
        """The item as a read-only row (its views render it or read its ids), or None when absent or its
        patient is restricted. Legacy allergy names have no id."""
        return _get(self.model).first(self.db, item_id=item_id)

    def list(self, query, cursors):
        """A page of rows (not entities): the representations read columns only
        (tests/clinical/test_rows_render_alike.py proves plain and FHIR identical)."""
        pages = _pages(self.model).bound({"patient_id": query.get("patient_id"),
                                           "updated_since": query.get("updated_since")})
        return keyset_page(cursors, self.db, pages, (self.model.created_at, self.model.id), query, rows=True)


_FIXED = {"patient_id": "A submission stays with its patient: withdraw it and send the item for the right "
                        "patient.",
          "no_known_allergies": "A submission stays the kind of send it was: withdraw it and send anew."}


def _payload(data):
    """What a submission keeps of a send: everything but the sender's reference and assistant name."""
    return jsonable({name: value for name, value in data.items() if name not in _SENT_FIELDS})


@implementer(IProposalService)
class ProposalService:
    """Turns a validated send into a submission: checks what needs the clinic's data or the code lists.
    `submissions` is the review queue's service for the same scope; `rxnorm` the verified code list."""

    def __init__(self, scope, rxnorm, submissions):
        self.db = scope.db
        self.identity = scope.identity
        self.rxnorm = rxnorm
        self.submissions = submissions

    def _visible_patient(self, patient_id):
        if not is_visible_patient(self.db, patient_id):
            raise invalid([{"pointer": "/patient_id", "message": "No such patient in this clinic."}])

    def _coded(self, data, field):
        """Fill or check the RxNorm-coded object at `field` ({text, rxnorm})."""
        coded = data.get(field)
        if not coded or "rxnorm" not in coded:
            return
        name = self.rxnorm.name(coded["rxnorm"])
        if name is None:
            raise invalid([{"pointer": f"/{field}/rxnorm", "message": "This RxNorm code is not on the verified "
                            "list; send the name as text without a code."}])
        coded.setdefault("text", name)

    def _send(self, resource_type, action, patient_id, target_id, data):
        return self.submissions.submit(
            resource_type=resource_type, action=action, patient_id=patient_id, target_id=target_id,
            payload=_payload(data), client_reference=data.get("client_reference"),
            origin_assistant_name=data.get("origin_assistant_name"))

    def propose(self, resource_type, data):
        """A new item (or a statement of no known allergies)."""
        action, data = self._checked_new(resource_type, data)
        return self._send(resource_type, action, data["patient_id"], uuid.uuid4(), data)

    def _checked_new(self, resource_type, data):
        """(action, data) of a new item's send its body schema accepted: what needs the clinic's data or the
        code lists is checked and filled in here."""
        self._visible_patient(data["patient_id"])
        action = "create"
        if resource_type == "allergy":
            if data.pop("no_known_allergies", False):
                action = "no_known_allergies"
            self._coded(data, "substance")
        elif resource_type == "medication_statement":
            self._coded(data, "medication")
        elif resource_type == "condition":
            data["icd10_code"] = terminology.icd10(data["icd10_code"])
            data.setdefault("display", terminology.icd10_description(data["icd10_code"])[:200])
        elif resource_type == "referral":
            data["reason_code"] = terminology.icd10(data["reason_code"])
        return action, data

    def propose_change(self, resource_type, record, data, status_field):
        action, data = self._checked_change(resource_type, record, data, status_field)
        return self._send(resource_type, action, record.patient_id, record.id, data)

    def _checked_change(self, resource_type, record, data, status_field):
        if resource_type == "referral":
            self._referral_changeable(record)
            if "reason_code" in data:
                data["reason_code"] = terminology.icd10(data["reason_code"])
        action = "retract" if data.get(status_field) == RETRACTED else "update"
        return action, data

    def revise(self, kind, submission, patch):
        """The sender's pending `submission` once `patch` (a JSON merge patch of what was sent) is merged in,
        checked as a new send of the same kind and action would be (`kind` names its body schemas): a
        `Revision`, or 400 invalid_request. The patient and the kind of send (a new item, a statement of no
        known allergies, a change of one item) stay what they were: change those by withdrawing it and
        sending anew."""
        fixed = [name for name in ("patient_id", "no_known_allergies") if name in patch]
        if fixed:
            raise invalid([{"pointer": f"/{name}", "message": _FIXED[name]} for name in fixed])
        if not patch:
            raise invalid([{"pointer": "", "message": "Send at least one field to change."}])
        sent = dict(submission.payload)
        if submission.action == "no_known_allergies":
            sent["no_known_allergies"] = True
        sent.update({name: getattr(submission, name) for name in _SENT_FIELDS
                     if getattr(submission, name) is not None})
        merged = merge_patch(sent, patch)
        if submission.action in ("update", "retract"):
            record = _get(kind.model).first(self.db, item_id=submission.target_id)
            if record is None:
                raise invalid([{"pointer": "", "message": "The item this change names is no longer readable."}])
            data = load_body(kind.change_schema, merged)
            action, data = self._checked_change(kind.resource_type, record, data, kind.status_field)
        else:
            data = load_body(kind.create_schema, merged)
            action, data = self._checked_new(kind.resource_type, data)
        return Revision(action, _payload(data), data.get("client_reference"), data.get("origin_assistant_name"))

    def _referral_changeable(self, referral):
        if not sent_by(self.identity, referral.sender_owner_id):
            raise invalid([{"pointer": "", "message": "Only the sender of a referral may change or take it "
                            "back."}], "This referral was sent by someone else.")
        if referral.acted_at is not None or referral.status != "received":
            raise invalid([{"pointer": "", "message": f"The clinic has acted on this referral (status "
                            f"{referral.status}); it can no longer be changed or taken back."}],
                          "The clinic has acted on this referral.")


def referral_of(db, referral_id):
    """The referral (whatever its patient), or None: what the clinic's booking of it reads."""
    return db.get(Referral, referral_id)


# Built once per kind's model: constructing these showed in the profile of every read.
@functools.cache
def _get(model):
    statement = visible(select(*model.__table__.columns), model.patient_id).where(
        model.id == bindparam("item_id", type_=Uuid()))
    return Prebuilt(statement.where(Allergy.entry != "legacy_text") if model is Allergy else statement)


@functools.cache
def _pages(model):
    return PrebuiltPages(visible(select(*model.__table__.columns), model.patient_id), (model.created_at, model.id),
                         {"patient_id": (model.patient_id, operator.eq),
                          "updated_since": (model.updated_at, operator.ge)})


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
    db.refresh(referral)
    document = representations.referral_json(referral, None)
    document["status_reason"] = referral.status_reason
    return {"referral": document}


def chart_kinds_for_export():
    """Each chart kind a bulk export writes, in the kinds' order: (resource_type, its FHIR type, the read
    permission that shows it)."""
    return tuple((kind.resource_type, kind.fhir_type, kind.read_permission) for kind in _chart_kinds())


def _chart_kinds():
    from clinicrecords.clinical.kinds import KINDS  # the kinds build on this module's services

    return KINDS


def chart_rows_for_export(resource_type, since=None):
    """The rows of one kind's items a bulk export writes (`resource_type`: "allergy", "condition",
    "medication_statement", "referral"), oldest first: those of patients the API may see, as the reads; allergy
    names from the clinic's plain list (legacy text) have no id and are left out (docs/decisions.md)."""
    [model] = [kind.model for kind in _chart_kinds() if kind.resource_type == resource_type]
    statement = visible_for_export(select(*model.__table__.columns), model.patient_id, model.updated_at, since)
    if model is Allergy:
        statement = statement.where(Allergy.entry != "legacy_text")
    return statement.order_by(model.created_at, model.id)
