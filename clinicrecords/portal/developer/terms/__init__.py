"""The API Terms page: the versioned text, acceptance by a workspace's owner (the record is the identity
context's)."""

from clinicrecords.portal.developer.terms.views import TermsPage
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child


def includeme(config):
    add_workspace_child(config, "terms", TermsPage)
    config.scan(".views")
