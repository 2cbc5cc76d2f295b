"""A clinic's staff as the clinic console's pages show them: the account's places on clinics' staff (the
identity context's memberships) with their clinics, and the console's activity trail. Staff are invited
through the identity context's one invitation service (an operator's `clinic staff add`, an admin's page)."""

import uuid
from dataclasses import dataclass

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.clinics.services import open_clinic
from clinicrecords.identity.services import IAccountService, IMembershipService
from clinicrecords.patients import services as patients
from clinicrecords.portal.console.interfaces import IConsoleService
from clinicrecords.portal.web.activity import Facts, activity_row
from clinicrecords.portal.web.audit import named_targets
from clinicrecords.review import services as review
from clinicrecords.review.interfaces import review_kinds
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.portal.web.resources import STAFF


@dataclass(frozen=True)
class StaffMembership:
    clinic: object  # clinicrecords.clinics Clinic, read through the access services
    roles: tuple

    @property
    def is_admin(self):
        return "admin" in self.roles

    @property
    def is_clinician(self):
        return "clinician" in self.roles


@implementer(IConsoleService)
class ConsoleService:
    def __init__(self, db, audit, people, accounts, registry):
        self.db = db
        self.audit = audit
        self.people = people
        self.accounts = accounts
        self.registry = registry

    def memberships(self, account_id):
        return [StaffMembership(access.get_clinic(self.db, clinic_id), roles)
                for clinic_id, roles in self.people.staff_roles(account_id)]

    def membership(self, account_id, clinic_id):
        roles = self.people.staff_roles_in(account_id, clinic_id)
        return None if roles is None else StaffMembership(access.get_clinic(self.db, clinic_id), roles)

    def clinic(self, clinic_id):
        return access.get_clinic(self.db, clinic_id)

    def activity(self, clinic_id):
        """The trail as `ActivityRow`s, newest first: a sentence each, the time in the clinic's time zone, the
        patient a decision or a download was about named, a decline's reason."""
        clinic = access.get_clinic(self.db, clinic_id)
        entries = self.audit.for_clinic(clinic_id)
        emails = self.accounts.emails(entry.account_id for entry in entries)
        named = named_targets(self.db, entries)
        facts = self._facts(clinic_id, entries)
        return [activity_row(entry, emails.get(entry.account_id), named.get(entry.id),
                             facts.get(entry.id, Facts()), clinic.timezone) for entry in entries]

    def _facts(self, clinic_id, entries):
        """{entry id: Facts} for the entries about a submission, a reviewed item or a patient, read from the
        clinic's schema in one statement per kind of target."""
        submissions, items, downloads = {}, {}, {}
        for entry in entries:
            target = _uuid(entry.target)
            if target is None:
                continue
            if entry.action.startswith("submission."):
                submissions[entry.id] = target
            elif entry.action == "item.reviewed" and (entry.details or {}).get("kind") in review_kinds(self.registry):
                items[entry.id] = (entry.details["kind"], target)
            elif entry.action == "access_report.downloaded":
                downloads[entry.id] = target
        if not (submissions or items or downloads):
            return {}
        open_clinic(self.db, clinic_id)
        found = review.submissions_by_id(self.db, submissions.values())
        item_patients = {}
        for kind in {kind for kind, _ in items.values()}:
            model = review_kinds(self.registry)[kind].model
            ids = [item_id for name, item_id in items.values() if name == kind]
            item_patients.update(self.db.execute(select(model.id, model.patient_id).where(model.id.in_(ids))).all())
        patient_of = {**{entry_id: found[s].patient_id for entry_id, s in submissions.items() if s in found},
                      **{entry_id: item_patients[i] for entry_id, (_, i) in items.items() if i in item_patients},
                      **downloads}
        people = patients.patients_by_id(self.db, patient_of.values())
        facts = {}
        for entry_id, patient_id in patient_of.items():
            patient = people.get(patient_id)
            submission = found.get(submissions.get(entry_id))
            reason = submission.decision_reason if submission is not None and submission.review_status == "rejected" \
                else None
            facts[entry_id] = Facts(patient_name=f"{patient.given_name} {patient.family_name}" if patient else None,
                                    reason=reason)
        return facts


def _uuid(text):
    try:
        return uuid.UUID(text or "")
    except ValueError:
        return None


def console_service_factory(context, request):
    return ConsoleService(request.db, request.find_service(IPortalAudit), request.find_service(IMembershipService),
                          request.find_service(IAccountService), request.registry)


def staff_principals(request, identity):
    """`portal.principal_finders`: the staff principal of a staff account (once per request)."""
    state = request.state
    if state.portal_is_staff is None:
        state.portal_is_staff = request.find_service(IMembershipService).is_staff(identity.account_id)
    return (STAFF,) if state.portal_is_staff else ()
