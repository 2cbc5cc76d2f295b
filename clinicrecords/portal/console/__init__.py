"""The clinic console's face: a clinic's pages, rooted at `/clinics/{clinic_id}` (this package: traversal to
the clinics whose staff the signed-in account is on, the overview, the activity trail, the layout, and the
staff check that sends staff home to their clinic and keeps them out of workspaces), with its areas
(`add_clinic_child`): staff, the review queue, who read what, the clinic's own keys, automatic acceptance."""

from clinicrecords.portal.console.interfaces import IConsoleService
from clinicrecords.portal.console.predicates import StaffPredicate
from clinicrecords.portal.console.resources import ClinicActivity, ClinicsCollection, add_clinic_child
from clinicrecords.portal.console.services import console_service_factory, staff_principals
from clinicrecords.portal.web import add_template_filter
from clinicrecords.portal.web.activity import clinic_time
from clinicrecords.portal.web.resources import add_portal_child
from clinicrecords.portal.web.security import add_principal_finder

AREAS = (
    ".staff",
    ".queue",
    ".access_report",
    ".keys",
    ".auto_accept",
)


def includeme(config):
    config.register_service_factory(console_service_factory, iface=IConsoleService)
    add_principal_finder(config, staff_principals)
    config.add_view_predicate("staff_account", StaffPredicate)
    # The console's times are the clinic's: `{{ moment | clinic_time(context.clinic) }}`.
    add_template_filter(config, "clinic_time", clinic_time)
    add_portal_child(config, "clinics", ClinicsCollection)
    add_clinic_child(config, "activity", ClinicActivity)
    config.scan(".views")
    for area in AREAS:
        config.include(area)
