from clinicrecords.portal.console.interfaces import IConsoleService
from clinicrecords.portal.console.resources import ClinicPart
from clinicrecords.portal.invitations.resources import InvitationLink
from clinicrecords.portal.web.faces import CLINIC_CONSOLE


class Staff(ClinicPart):
    """/clinics/{id}/staff: the staff list; an admin invites."""


class JoinPage(InvitationLink):
    """/staff-invitations?token=…: a clinic's staff invitation link; a new person sets a password here."""

    kind = "clinic"
    face = CLINIC_CONSOLE
    brand = "clinic console"
    sets_password = True
    joining, join_words = "the staff of", "Join the clinic's staff"

    def target_name(self, invitation):
        return self.request.find_service(IConsoleService).clinic(invitation.clinic_id).name

    def joined_path(self, invitation):
        return ("clinics", invitation.clinic_id)
