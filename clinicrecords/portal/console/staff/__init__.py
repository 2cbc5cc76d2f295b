"""The clinic console's staff pages: the staff list (admin and/or clinician), an admin's invitations, and the
link where an invited person joins (setting a password when new). The people and invitations are the identity
context's."""

from clinicrecords.portal.console.resources import add_clinic_child
from clinicrecords.portal.console.staff.resources import JoinPage, Staff
from clinicrecords.portal.web.resources import add_portal_child


def includeme(config):
    add_portal_child(config, "staff-invitations", JoinPage)
    add_clinic_child(config, "staff", Staff)
    config.scan(".views")
