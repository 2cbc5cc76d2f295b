from pyramid.decorator import reify
from pyramid.httpexceptions import HTTPNotFound

from clinicrecords.identity.services import IInvitationService
from clinicrecords.portal.console.resources import ClinicPart
from clinicrecords.portal.web.faces import CLINIC_CONSOLE
from clinicrecords.portal.web.resources import Node


class Staff(ClinicPart):
    """/clinics/{id}/staff: the staff list; an admin invites."""


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
