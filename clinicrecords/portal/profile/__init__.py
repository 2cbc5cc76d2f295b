"""The business profile in the portal: an owner submits it once the domain is verified; members see the review
status and, when rejected, the operator's reason. The review itself is onboarding's IBusinessProfile."""

from clinicrecords.portal.profile.interfaces import IProfilePages
from clinicrecords.portal.profile.resources import ProfilePage
from clinicrecords.portal.profile.services import profile_pages_factory


def includeme(config):
    config.register_service_factory(profile_pages_factory, iface=IProfilePages)
    config.add_workspace_child("profile", ProfilePage)
    config.scan(".views")
