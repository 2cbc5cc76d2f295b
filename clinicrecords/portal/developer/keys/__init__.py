"""A workspace's API keys: the list and creation (test at once; live behind the gate); revoke, roll and the IP
allow-list are the key pages both faces share (`portal.keys`)."""

from clinicrecords.access.interfaces import ILiveKeyGate
from clinicrecords.portal.developer.keys.gate import live_key_gate_factory
from clinicrecords.portal.developer.keys.interfaces import IKeyService
from clinicrecords.portal.developer.keys.resources import KeysCollection
from clinicrecords.portal.developer.keys.services import key_service_factory
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child
from clinicrecords.portal.keys import add_key_pages
from clinicrecords.portal.web.resources import MEMBER
from clinicrecords.settings import app_settings


def includeme(config):
    config.register_service_factory(live_key_gate_factory, iface=ILiveKeyGate)
    config.register_service_factory(key_service_factory(app_settings(config.registry)), iface=IKeyService)
    add_workspace_child(config, "keys", KeysCollection)
    add_key_pages(config, KeysCollection, MEMBER)
    config.scan(".views")
