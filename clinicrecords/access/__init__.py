"""Access: bearer keys, workspaces, connections, permissions, reach, /v1/me and /v1/connections."""

from pyramid.events import ContextFound

from clinicrecords.access.gate import add_gate_check, gate_where_traversal_stopped, key_gate
from clinicrecords.access.identity import record_last_use
from clinicrecords.access.keycache import KeyCache
from clinicrecords.access.permissions import PERMISSION_DESCRIPTIONS
from clinicrecords.clinics.interfaces import IReach
from clinicrecords.access.permission_map import look_refusal, replay_allowed
from clinicrecords.access.ratelimit import make_limiter, rate_limit_check
from clinicrecords.access.reach import reach_factory
from clinicrecords.access.representations import ConnectionOut, KeyOut, connection_json, key_json
from clinicrecords.access.resources import Connections, Me
from clinicrecords.access.security_policy import KeySecurityPolicy
from clinicrecords.access.usage import IUsageService, plan_allowances, usage_service_factory
from clinicrecords.settings import app_settings


def includeme(config):
    # pyramid_tm must not name the transaction's user (clinicrecords.settings.LIBRARY_DEFAULTS, tm.annotate_user).
    settings = app_settings(config.registry)
    key_cache = KeyCache(settings.access.key_cache_size)
    config.registry["access.key_cache"] = key_cache
    policy = KeySecurityPolicy(settings.secrets.key_pepper, key_cache)
    config.set_security_policy(policy)
    config.set_request_caller(policy.caller)
    config.set_look_guard(look_refusal)
    config.set_replay_guard(replay_allowed)
    config.add_directive("add_gate_check", add_gate_check)
    config.registry["access.rate_limiter"] = make_limiter(settings.ratelimit, config.registry["db.engine"])
    config.add_gate_check(rate_limit_check)
    config.add_gate_check(record_last_use)
    config.add_request_method(key_gate(policy), "require_key")
    config.add_subscriber(gate_where_traversal_stopped, ContextFound)
    config.register_service_factory(reach_factory, iface=IReach)
    config.registry["access.allowances"] = plan_allowances(settings.plans)
    config.register_service_factory(usage_service_factory, iface=IUsageService)
    config.add_representation("key", plain=key_json, schema=KeyOut)
    config.add_representation("connection", plain=connection_json, schema=ConnectionOut)
    config.add_api_resource("me", Me)
    config.add_api_resource("connections", Connections)
    config.scan(".views")
    config.add_permission_names(PERMISSION_DESCRIPTIONS)
