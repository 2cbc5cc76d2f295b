"""API conventions shared by every bounded context: problems, request ids, bodies, validation,
idempotency, cursors and pagination, representations (plain JSON and FHIR R4), the request log."""

from clinicrecords.api.cursors import CURSOR_SIGNER, CursorSigner
from clinicrecords.api.render import json_renderer
from clinicrecords.settings import app_settings


def includeme(config):
    config.registry[CURSOR_SIGNER] = CursorSigner(app_settings(config.registry).secrets.cursor)
    config.add_renderer("json", json_renderer())
    config.include(".request_id")
    config.include(".public_url")
    config.include(".body")
    config.include(".idempotency")
    config.include(".validation")
    config.include(".body_limit")
    config.include(".representations")
    config.include(".openapi")
    config.include(".reference")
    config.include(".request_log")
    config.include(".request_text")
    config.include(".limits")
    config.include(".errorviews")
    config.include(".view_lookup")
    # Registers the periodic pruning with the Huey instance of whichever process runs the application.
    from clinicrecords.api import tasks  # noqa: F401
