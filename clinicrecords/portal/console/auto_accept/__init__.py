"""Automatic acceptance in the clinic console (decision 0033): per organization or key, per kind, off by
default; the volume pause shown, and resumed by an admin."""

from clinicrecords.portal.console.auto_accept.interfaces import IAutoAcceptSettings
from clinicrecords.portal.console.auto_accept.resources import AutoAcceptPage
from clinicrecords.portal.console.auto_accept.services import auto_accept_settings_factory
from clinicrecords.portal.console.resources import add_clinic_child


def includeme(config):
    config.register_service_factory(auto_accept_settings_factory, iface=IAutoAcceptSettings)
    add_clinic_child(config, "auto-accept", AutoAcceptPage)
    config.scan(".views")
