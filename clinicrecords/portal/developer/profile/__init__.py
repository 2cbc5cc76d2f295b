"""The business profile in the portal: an owner submits it once the domain is verified; members see the review
status and, when rejected, the operator's reason. The review itself is onboarding's IBusinessProfile."""

from clinicrecords.portal.developer.profile.interfaces import IProfilePages
from clinicrecords.portal.developer.profile.resources import ProfilePage
from clinicrecords.portal.developer.profile.services import profile_pages_factory
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child


def includeme(config):
    config.register_service_factory(profile_pages_factory, iface=IProfilePages)
    add_workspace_child(config, "profile", ProfilePage)
    config.scan(".views")
