"""The clinic console's staff pages: the staff list (admin and/or clinician), an admin's invitations, and the
link where an invited person joins, setting a password when new (the page both faces show,
`portal.invitations`). The people and invitations are the identity
context's."""

from pyramid.security import NO_PERMISSION_REQUIRED

from clinicrecords.portal.console.resources import add_clinic_child
from clinicrecords.portal.console.staff.resources import JoinPage, Staff
from clinicrecords.portal.invitations import add_invitation_pages
from clinicrecords.portal.web.resources import add_portal_child


def includeme(config):
    add_portal_child(config, "staff-invitations", JoinPage)
    add_invitation_pages(config, JoinPage, NO_PERMISSION_REQUIRED)
    add_clinic_child(config, "staff", Staff)
    config.scan(".views")
