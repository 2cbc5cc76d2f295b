"""Access: bearer keys, workspaces, connections, who may do what (the permission map), entering a clinic,
/v1/me and /v1/connections."""

from pyramid.events import ContextFound

from clinicrecords.access.entry import Clinics, enter_where_traversal_stopped
from clinicrecords.access.interfaces import IReach
from clinicrecords.access.keycache import DEFAULT_SIZE, KeyCache
from clinicrecords.access.permission_map import look_refusal, replay_allowed
from clinicrecords.access.permissions import PERMISSION_DESCRIPTIONS
from clinicrecords.access.ratelimit import make_limiter
from clinicrecords.access.reach import reach_factory
from clinicrecords.access.representations import ConnectionOut, KeyOut, connection_json, key_json
from clinicrecords.access.resources import Connections, Me
from clinicrecords.access.security_policy import KeySecurityPolicy
from clinicrecords.access.usage import IUsageService, plan_allowances, usage_service_factory


def includeme(config):
    settings = config.get_settings()
    # pyramid_tm would name the transaction's user by reading the key before traversal names the clinic, so
    # the key and its reach of the clinic would no longer be one statement (docs/decisions.md, hot path).
    settings.setdefault("tm.annotate_user", "false")
    key_cache = KeyCache(int(settings.get("access.key_cache_size", DEFAULT_SIZE)))
    config.registry["access.key_cache"] = key_cache
    policy = KeySecurityPolicy(settings["secrets.key_pepper"], key_cache)
    config.registry["access.key_policy"] = policy
    config.set_security_policy(policy)
    config.set_request_caller(policy.caller)
    config.set_look_guard(look_refusal)
    config.set_replay_guard(replay_allowed)
    config.registry["access.rate_limiter"] = make_limiter(settings, config.registry["db.engine"])
    # /v1/clinics/{clinic_id}: the clinic the path names is entered there; a keyed path naming none, once
    # traversal has found its context (clinicrecords.access.entry).
    config.add_api_resource("clinics", Clinics)
    config.add_subscriber(enter_where_traversal_stopped, ContextFound)
    config.register_service_factory(reach_factory, iface=IReach)
    config.registry["access.allowances"] = plan_allowances(settings)
    config.register_service_factory(usage_service_factory, iface=IUsageService)
    config.add_representation("key", plain=key_json, schema=KeyOut)
    config.add_representation("connection", plain=connection_json, schema=ConnectionOut)
    config.add_api_resource("me", Me)
    config.add_api_resource("connections", Connections)
    config.scan(".views")
    config.add_permission_names(PERMISSION_DESCRIPTIONS)
