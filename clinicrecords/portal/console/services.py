"""A clinic's staff as the clinic console's pages show them: the account's places on clinics' staff (the
identity context's memberships) with their clinics, and the console's activity trail. Staff are invited
through the identity context's one invitation service (an operator's `clinic staff add`, an admin's page)."""

from dataclasses import dataclass

from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.identity.services import IAccountService, IMembershipService
from clinicrecords.portal.console.interfaces import IConsoleService
from clinicrecords.portal.web.audit import named_targets
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
    def __init__(self, db, audit, people, accounts):
        self.db = db
        self.audit = audit
        self.people = people
        self.accounts = accounts

    def memberships(self, account_id):
        return [StaffMembership(access.get_clinic(self.db, clinic_id), roles)
                for clinic_id, roles in self.people.staff_roles(account_id)]

    def membership(self, account_id, clinic_id):
        roles = self.people.staff_roles_in(account_id, clinic_id)
        return None if roles is None else StaffMembership(access.get_clinic(self.db, clinic_id), roles)

    def clinic(self, clinic_id):
        return access.get_clinic(self.db, clinic_id)

    def activity(self, clinic_id):
        """(entry, staff member's email or None for an operator, its target's NamedTarget or None), newest
        first."""
        entries = self.audit.for_clinic(clinic_id)
        emails = self.accounts.emails(entry.account_id for entry in entries)
        named = named_targets(self.db, entries)
        return [(entry, emails.get(entry.account_id), named.get(entry.id)) for entry in entries]


def console_service_factory(context, request):
    return ConsoleService(request.db, request.find_service(IPortalAudit), request.find_service(IMembershipService),
                        request.find_service(IAccountService))


def staff_principals(request, identity):
    """`portal.principal_finders`: the staff principal of a staff account (once per request)."""
    state = request.state
    if state.portal_is_staff is None:
        state.portal_is_staff = request.find_service(IMembershipService).is_staff(identity.account_id)
    return (STAFF,) if state.portal_is_staff else ()
