"""Clinic Records API: a Pyramid application routed by traversal into per-clinic PostgreSQL schemas."""

from pyramid.config import Configurator
from pyramid.request import Request

from clinicrecords import contexts
from clinicrecords.api.public_url import PublicUrls
from clinicrecords.api.state import StatefulRequest
from clinicrecords.listening import settings_with_listen
from clinicrecords.settings import SettingsError, refuse_to_start, resolve

NO_DEFAULT_PERMISSION = "__no_default_permission__"


class ClinicRecordsRequest(PublicUrls, StatefulRequest, Request):
    """The application's request: public URLs, and `request.state` (what the request learns on its way)."""

    # pyramid_retry makes every body seekable so a retry can read it again. Bodies are capped (10 MiB for
    # imports), so keep them in memory rather than in temporary files that nothing closes.
    request_body_tempfile_limit = 16 * 1024 * 1024


def make_config(settings):
    config = Configurator(settings=resolve(settings), request_factory=ClinicRecordsRequest)
    config.include("clinicrecords.services")
    config.include("pyramid_retry")
    config.include("pyramid_tm")
    config.registry.settings.setdefault("tm.manager_hook", "pyramid_tm.explicit_manager")
    # A view that forgets its permission is denied to everyone rather than open to anyone.
    config.set_default_permission(NO_DEFAULT_PERMISSION)
    for name in contexts.PLATFORM + contexts.CONTEXTS:
        config.include(name)
    contexts.load_models()
    return config


def main(global_config, **settings):
    """The WSGI application (paste.app_factory)."""
    try:
        config = make_config(settings_with_listen(settings, global_config))
    except SettingsError as exc:
        # pserve, the worker and the operator CLI all start here: a missing secret is one line naming it.
        refuse_to_start(exc)
    return config.make_wsgi_app()
