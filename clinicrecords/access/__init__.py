"""Access: bearer keys, workspaces, connections, who may do what (the permission map), entering a clinic,
/v1/me and /v1/connections."""

from clinicrecords.access.entry import Clinics, EnteringTraverser
from clinicrecords.access.interfaces import IReach
from clinicrecords.access.keycache import KEY_CACHE, KeyCache
from clinicrecords.access.permission_map import look_refusal, replay_allowed
from clinicrecords.access.permissions import PERMISSION_DESCRIPTIONS
from clinicrecords.access.ratelimit import RATE_LIMITER, make_limiter
from clinicrecords.access.reach import reach_factory
from clinicrecords.access.representations import ConnectionOut, KeyOut, connection_json, key_json
from clinicrecords.access.resources import Connections, Me
from clinicrecords.access.security_policy import KEY_POLICY, KeySecurityPolicy
from clinicrecords.access.usage import ALLOWANCES, IUsageService, plan_allowances, usage_service_factory
from clinicrecords.api.errorviews import set_look_guard, set_replay_guard
from clinicrecords.api.permission_names import add_permission_names
from clinicrecords.api.request_log import set_request_caller
from clinicrecords.db import ENGINE
from clinicrecords.settings import app_settings


def includeme(config):
    # pyramid_tm must not name the transaction's user (clinicrecords.settings.LIBRARY_DEFAULTS, tm.annotate_user).
    settings = app_settings(config.registry)
    key_cache = KeyCache(settings.access.key_cache_size)
    config.registry[KEY_CACHE] = key_cache
    policy = KeySecurityPolicy(settings.secrets.key_pepper, key_cache)
    config.registry[KEY_POLICY] = policy
    config.set_security_policy(policy)
    set_request_caller(config, policy.caller)
    set_look_guard(config, look_refusal)
    set_replay_guard(config, replay_allowed)
    config.registry[RATE_LIMITER] = make_limiter(settings.ratelimit, config.registry[ENGINE])
    # /v1/clinics/{clinic_id}: the clinic the path names is entered there; a keyed path naming none, once
    # traversal has found its context (clinicrecords.access.entry).
    config.add_api_resource("clinics", Clinics)
    config.add_traverser(EnteringTraverser)
    config.register_service_factory(reach_factory, iface=IReach)
    config.registry[ALLOWANCES] = plan_allowances(settings.plans)
    config.register_service_factory(usage_service_factory, iface=IUsageService)
    config.add_representation("key", plain=key_json, schema=KeyOut)
    config.add_representation("connection", plain=connection_json, schema=ConnectionOut)
    config.add_api_resource("me", Me)
    config.add_api_resource("connections", Connections)
    config.scan(".views")
    add_permission_names(config, PERMISSION_DESCRIPTIONS)
