"""The clinic console's staff: the staff pages (the team pages both faces show, `portal.team`: the staff,
admin and/or clinician, an admin's invitations, role changes and removals, leaving) and the link where an
invited person joins, setting a password when new (the page both faces show, `portal.invitations`). The people
and invitations are the identity context's."""

from pyramid.security import NO_PERMISSION_REQUIRED

from clinicrecords.portal.console.resources import add_clinic_child
from clinicrecords.portal.console.staff.resources import JoinPage, Staff
from clinicrecords.portal.invitations import add_invitation_pages
from clinicrecords.portal.team import add_team_pages
from clinicrecords.portal.web.resources import CLINIC_ADMIN, CLINIC_STAFF, add_portal_child


def includeme(config):
    add_portal_child(config, "staff-invitations", JoinPage)
    add_invitation_pages(config, JoinPage, NO_PERMISSION_REQUIRED)
    add_clinic_child(config, "staff", Staff)
    add_team_pages(config, Staff, CLINIC_STAFF, CLINIC_ADMIN)
