"""The API Terms: versioned text, acceptance by a workspace's owner."""

from clinicrecords.portal.terms.interfaces import ITermsService
from clinicrecords.portal.terms.services import terms_service_factory
from clinicrecords.portal.terms.views import TermsPage
from clinicrecords.portal.workspaces.resources import add_workspace_child
from clinicrecords.settings import app_settings


def includeme(config):
    config.register_service_factory(terms_service_factory(app_settings(config.registry)), iface=ITermsService)
    add_workspace_child(config, "terms", TermsPage)
    config.scan(".views")
