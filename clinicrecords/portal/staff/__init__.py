"""The clinic console's staff: clinics' staff accounts (admin, clinician), their invitation links, the
clinic's pages tree (`/clinics/{clinic_id}/…`) and the staff check that keeps staff out of workspaces (the
permission map's `not_staff_in_developer_places`)."""

from clinicrecords.portal.staff.interfaces import IStaffService
from clinicrecords.portal.staff.predicates import StaffPredicate
from clinicrecords.portal.staff.resources import (ClinicsCollection, JoinPage, Staff, StaffActivity,
                                                  add_clinic_child)
from clinicrecords.portal.staff.services import staff_principals, staff_service_factory


def includeme(config):
    config.registry["portal.clinic_children"] = {}
    config.add_directive("add_clinic_child", add_clinic_child)
    config.register_service_factory(staff_service_factory, iface=IStaffService)
    config.registry["portal.principal_finders"].append(staff_principals)
    config.add_view_predicate("staff_account", StaffPredicate)
    config.add_portal_child("clinics", ClinicsCollection)
    config.add_portal_child("staff-invitations", JoinPage)
    config.add_clinic_child("staff", Staff)
    config.add_clinic_child("activity", StaffActivity)
    config.scan(".views")
