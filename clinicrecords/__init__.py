"""Clinic Records API: a Pyramid application routed by traversal into per-clinic PostgreSQL schemas."""

from pyramid.config import Configurator
from pyramid.request import Request

from clinicrecords import contexts
from clinicrecords.api.public_url import PublicUrls
from clinicrecords.settings import resolve

NO_DEFAULT_PERMISSION = "__no_default_permission__"


class ClinicRecordsRequest(PublicUrls, Request):
    # pyramid_retry makes every body seekable so a retry can read it again. Bodies are capped (10 MiB for
    # imports), so keep them in memory rather than in temporary files that nothing closes.
    request_body_tempfile_limit = 16 * 1024 * 1024


def make_config(settings):
    config = Configurator(settings=resolve(settings), request_factory=ClinicRecordsRequest)
    config.include("pyramid_services")
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
    return make_config(settings).make_wsgi_app()
