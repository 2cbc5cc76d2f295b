"""The workspace's Security page (decision 0098): an owner requires a second factor of every member; each
member's state is shown. Members without one are led to enrol before the workspace's pages open
(`portal.accounts.factors.required`)."""

from clinicrecords.portal.developer.security.views import SecurityPage
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child


def includeme(config):
    add_workspace_child(config, "security", SecurityPage)
    config.scan(".views")
