"""Clinic Records API: a Pyramid application routed by traversal into per-clinic PostgreSQL schemas."""

from pyramid.config import Configurator
from pyramid.request import Request

from clinicrecords import contexts
from clinicrecords.api.public_url import PublicUrls, served_address_note
from clinicrecords.api.state import StatefulRequest
from clinicrecords.settings import (REGISTRY_KEY, SettingsError, app_settings, read, refuse_to_start, resolve,
                                    with_library_defaults, with_served_url, with_server_listen)

NO_DEFAULT_PERMISSION = "__no_default_permission__"
# What the operator CLI tells the operator when the running service answers elsewhere than its settings say
# (`api.public_url.served_address_note`), kept in the registry by `main`; None when they agree.
SERVED_NOTE = "served.note"


class ClinicRecordsRequest(PublicUrls, StatefulRequest, Request):
    """The application's request: public URLs, and `request.state` (what the request learns on its way)."""

    # pyramid_retry makes every body seekable so a retry can read it again. Bodies are capped (10 MiB for
    # imports), so keep them in memory rather than in temporary files that nothing closes.
    request_body_tempfile_limit = 16 * 1024 * 1024


def make_config(settings):
    """The application's configuration from the ini's settings, read once here into the typed settings
    (clinicrecords.settings) every part of it takes its values from."""
    settings = resolve(settings)
    config = Configurator(settings=with_library_defaults(settings), request_factory=ClinicRecordsRequest)
    config.registry[REGISTRY_KEY] = read(settings)
    config.include("clinicrecords.services")
    config.include("pyramid_retry")
    config.include("pyramid_tm")
    # A view that forgets its permission is denied to everyone rather than open to anyone.
    config.set_default_permission(NO_DEFAULT_PERMISSION)
    for name in contexts.PLATFORM + contexts.CONTEXTS:
        config.include(name)
    config.include("clinicrecords.request_class")
    contexts.load_models()
    return config


def main(global_config, **settings):
    """The WSGI application (paste.app_factory)."""
    try:
        config = make_config(with_served_url(with_server_listen(settings, global_config), global_config))
        config.registry[SERVED_NOTE] = served_address_note(app_settings(config.registry))
    except SettingsError as exc:
        # pserve, the worker and the operator CLI all start here: a missing secret is one line naming it.
        refuse_to_start(exc)
    return config.make_wsgi_app()
