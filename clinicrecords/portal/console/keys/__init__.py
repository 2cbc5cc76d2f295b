"""The clinic's own API keys in the clinic console (decision 0033): admins create (always live; the secret
shown once), list masked; roll with an overlap, revoke and the IP allow-list are the key pages both faces share
(`portal.keys`)."""

from clinicrecords.portal.console.keys.interfaces import IClinicKeyService
from clinicrecords.portal.console.keys.resources import ClinicKeys
from clinicrecords.portal.console.keys.services import clinic_key_service_factory
from clinicrecords.portal.console.resources import add_clinic_child
from clinicrecords.portal.keys import add_key_pages
from clinicrecords.portal.web.resources import CLINIC_ADMIN
from clinicrecords.settings import app_settings


def includeme(config):
    config.register_service_factory(clinic_key_service_factory(app_settings(config.registry)),
                                    iface=IClinicKeyService)
    add_clinic_child(config, "keys", ClinicKeys)
    add_key_pages(config, ClinicKeys, CLINIC_ADMIN)
    config.scan(".views")
