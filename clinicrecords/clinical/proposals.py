"""Proposing new chart items and changes: a validated send becomes a submission for the clinic's review."""

import datetime
import uuid

from zope.interface import implementer

from clinicrecords.access.services import sent_by
from clinicrecords.api.merge_patch import merge_patch
from clinicrecords.api.problems import invalid
from clinicrecords.api.validation import load_body
from clinicrecords.clinical import terminology
from clinicrecords.clinical.interfaces import IProposalService
from clinicrecords.clinical.items import first_visible
from clinicrecords.clinical.schemas import RETRACTED
from clinicrecords.patients.services import is_visible_patient
from clinicrecords.review.interfaces import Revision

_SENT_FIELDS = ("client_reference", "origin_assistant_name")


def jsonable(value):
    if isinstance(value, dict):
        return {name: jsonable(item) for name, item in value.items()}
    if isinstance(value, list):
        return [jsonable(item) for item in value]
    if isinstance(value, (datetime.date, uuid.UUID)):
        return str(value)
    return value


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
            record = first_visible(kind.model, self.db, item_id=submission.target_id)
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
