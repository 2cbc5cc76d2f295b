import uuid

from pyramid.decorator import reify
from pyramid.httpexceptions import HTTPForbidden, HTTPNotFound
from pyramid.traversal import find_interface
from zope.interface import implementer

from clinicrecords.access.interfaces import IClinicStaffMembership
from clinicrecords.identity.services import IInvitationService
from clinicrecords.portal.staff.interfaces import IStaffService
from clinicrecords.portal.web.faces import CLINIC_CONSOLE
from clinicrecords.portal.web.resources import Node


# {segment: node class} under a clinic, as the areas registered them (`add_clinic_child`).
CLINIC_CHILDREN = "portal.clinic_children"


class ClinicsCollection(Node):
    """/clinics/{clinic_id}: only the clinics whose staff the signed-in account is on exist here."""

    face = CLINIC_CONSOLE
    service = IStaffService
    item_parameter = "clinic_id"

    def __getitem__(self, name):
        identity = self.request.identity
        if identity is None:
            raise HTTPForbidden()  # to the login page, before anything about the id is looked up
        try:
            clinic_id = uuid.UUID(name)
        except ValueError:
            raise KeyError(name) from None
        membership = self.request.find_service(self.service).membership(identity.account_id, clinic_id)
        if membership is None:
            raise KeyError(name)
        return self.item_resource(self, name, membership, identity.account_id)


@implementer(IClinicStaffMembership)
class ClinicResource(Node):
    """/clinics/{clinic_id}: its pages are the console's areas (`add_clinic_child`). It holds the
    signed-in account's place on the clinic's staff, which the permission map reads (staff, admin, clinician)."""

    children_registered_as = CLINIC_CHILDREN
    forbidden_message = "Your role on the staff of this clinic does not include this page."
    face = CLINIC_CONSOLE

    def __init__(self, parent, name, membership, account_id):
        super().__init__(parent, name)
        self.membership = membership
        self.clinic = membership.clinic
        self.account_id = account_id

    @property
    def is_admin(self):
        return self.membership.is_admin

    @property
    def is_clinician(self):
        return self.membership.is_clinician

    @property
    def clinic_resource(self):
        return self

    @property
    def home_url(self):
        """The console's home for this clinic: its overview."""
        return self.request.portal_url("clinics", self.clinic.id)


ClinicsCollection.item_resource = ClinicResource


class ClinicPart(Node):
    """Any page below a clinic: it knows its clinic (and the staff member's role there)."""

    forbidden_message = ClinicResource.forbidden_message

    @property
    def clinic_resource(self):
        return find_interface(self, ClinicResource)

    @property
    def clinic(self):
        return self.clinic_resource.clinic

    @property
    def membership(self):
        return self.clinic_resource.membership

    @property
    def home_url(self):
        return self.clinic_resource.home_url


class Staff(ClinicPart):
    """/clinics/{id}/staff: the staff list; an admin invites."""


class StaffActivity(ClinicPart):
    """/clinics/{id}/activity: the console's audit trail for this clinic."""


class JoinPage(Node):
    """/staff-invitations?token=…: a staff invitation link; a new person sets a password here. The token is in
    the query string, which the request log never writes."""

    public = True
    face = CLINIC_CONSOLE

    @property
    def token(self):
        return self.request.params.get("token", "")

    @reify
    def invitation(self):
        invitation = self.request.find_service(IInvitationService).invitation(self.token, "clinic")
        if invitation is None:
            raise HTTPNotFound()
        return invitation


def add_clinic_child(config, name, factory):
    """`/clinics/{clinic_id}/<name>` is `factory(parent, name)`."""
    config.registry.setdefault(CLINIC_CHILDREN, {})[name] = factory
