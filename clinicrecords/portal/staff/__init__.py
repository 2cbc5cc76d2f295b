"""The clinic console's staff: clinics' staff accounts (admin and/or clinician), their invitation links, the
clinic's pages tree (`/clinics/{clinic_id}/…`) and the staff check that keeps staff out of workspaces (the
permission map's `not_staff_in_developer_places`)."""

from clinicrecords.portal.staff.interfaces import IStaffService
from clinicrecords.portal.staff.predicates import StaffPredicate
from clinicrecords.portal.staff.resources import ClinicsCollection, JoinPage, Staff, StaffActivity, add_clinic_child
from clinicrecords.portal.staff.services import staff_principals, staff_service_factory
from clinicrecords.portal.web.resources import add_portal_child
from clinicrecords.portal.web.security import add_principal_finder


def includeme(config):
    config.register_service_factory(staff_service_factory, iface=IStaffService)
    add_principal_finder(config, staff_principals)
    config.add_view_predicate("staff_account", StaffPredicate)
    add_portal_child(config, "clinics", ClinicsCollection)
    add_portal_child(config, "staff-invitations", JoinPage)
    add_clinic_child(config, "staff", Staff)
    add_clinic_child(config, "activity", StaffActivity)
    config.scan(".views")
