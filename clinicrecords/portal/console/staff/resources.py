from clinicrecords.identity.services import Place
from clinicrecords.portal.console.interfaces import IConsoleService
from clinicrecords.portal.console.resources import ClinicPart
from clinicrecords.portal.invitations.resources import InvitationLink
from clinicrecords.portal.team.resources import TeamArea, TeamMemberPage, TeamWords
from clinicrecords.portal.web.faces import CLINIC_CONSOLE


class Staff(TeamArea, ClinicPart):
    """/clinics/{id}/staff: the team pages both faces show (`portal.team`); an admin manages them."""

    layout = "clinicrecords.portal.console:templates/clinic_layout.jinja2"
    section = "staff"
    words = TeamWords("Staff", "staff member", "the clinic", "On the staff since")
    role_options = [("clinician", "Clinician", "decides the review queue"),
                    ("admin", "Admin", "manages staff, keys, connections and automatic acceptance"),
                    ("admin,clinician", "Admin and clinician", "both: a small practice's one person")]
    invite_role = "clinician"
    link_page = "staff-invitations"

    @property
    def place(self):
        return Place("clinic", self.clinic.id, self.clinic.name)

    @property
    def manages(self):
        return self.membership.is_admin

    @property
    def path(self):
        return ("clinics", self.clinic.id, "staff")


class StaffMemberPage(TeamMemberPage, ClinicPart):
    """/clinics/{id}/staff/{account_id}: an admin changes a staff member's roles or removes them."""


Staff.item_resource = StaffMemberPage


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
