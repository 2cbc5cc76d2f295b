"""The clinic console's root: `/clinics/{clinic_id}`, where traversal finds only the clinics whose staff the
signed-in account is on, and the nodes its areas hang below it (`add_clinic_child`)."""

import uuid

from pyramid.httpexceptions import HTTPForbidden
from pyramid.traversal import find_interface
from zope.interface import implementer

from clinicrecords.access.interfaces import IClinicStaffMembership
from clinicrecords.portal.console.interfaces import IConsoleService
from clinicrecords.portal.web.faces import CLINIC_CONSOLE
from clinicrecords.portal.web.resources import Node


# {segment: node class} under a clinic, as the areas registered them (`add_clinic_child`).
CLINIC_CHILDREN = "portal.clinic_children"


class ClinicsCollection(Node):
    """/clinics/{clinic_id}: only the clinics whose staff the signed-in account is on exist here."""

    face = CLINIC_CONSOLE
    service = IConsoleService
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


class ClinicActivity(ClinicPart):
    """/clinics/{id}/activity: the console's audit trail for this clinic."""


def add_clinic_child(config, name, factory):
    """`/clinics/{clinic_id}/<name>` is `factory(parent, name)`."""
    config.registry.setdefault(CLINIC_CHILDREN, {})[name] = factory
