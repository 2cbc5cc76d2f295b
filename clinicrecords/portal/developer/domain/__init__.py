"""The workspace's domain in the portal: the TXT record to publish, the state of its checks, "Check now",
and changing the domain (after a confirmation). The checks themselves are onboarding's IDomainVerification."""

from clinicrecords.portal.developer.domain.interfaces import IDomainPages
from clinicrecords.portal.developer.domain.resources import DomainPage
from clinicrecords.portal.developer.domain.services import domain_pages_factory
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child
from clinicrecords.settings import app_settings


def includeme(config):
    config.register_service_factory(domain_pages_factory(app_settings(config.registry)), iface=IDomainPages)
    add_workspace_child(config, "domain", DomainPage)
    config.scan(".views")
