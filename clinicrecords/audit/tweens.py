"""Two tweens record each request that reaches an audited collection, exactly once.

The inner one sits inside pyramid_tm: a successful answer's entry joins the request's transaction, so a write
and its audit row commit (or vanish) together. The outer one sits outside everything: when no entry was
committed (a refusal, a failure, an aborted commit) it appends one in a short transaction of its own.
"""

import logging

from clinicrecords.api.errorviews import is_unavailable
from clinicrecords.audit import services
from clinicrecords.db import ENGINE

log = logging.getLogger(__name__)


def audit_in_transaction_tween_factory(handler, registry):
    def audit_in_transaction(request):
        response = handler(request)
        if response.status_int < 400 and getattr(request, "exception", None) is None:
            scope = services.audited_scope(request)
            if scope is not None:
                services.append_with_commit(request.db, scope.clinic_id,
                                            services.entry_values(request, scope, response.status_int, response))
                request.tm.get().addAfterCommitHook(lambda ok: _committed(request, ok))
        return response

    return audit_in_transaction


def _committed(request, ok):
    request.audit_committed = getattr(request, "audit_committed", False) or ok


def audit_apart_tween_factory(handler, registry):
    def audit_apart(request):
        # Each attempt pyramid_retry makes is a new request: a retried attempt starts again.
        try:
            response = handler(request)
        except Exception as exc:
            # The commit itself failed; the exception view outside the tweens answers (and may retry).
            _record_apart(request, registry, 503 if is_unavailable(exc) else 500, None)
            raise
        if not getattr(request, "audit_committed", False):
            _record_apart(request, registry, response.status_int, response)
        return response

    return audit_apart


def _record_apart(request, registry, status, response):
    scope = services.audited_scope(request)
    if scope is None:
        return
    try:
        services.append_apart(registry[ENGINE], scope.clinic_id,
                              services.entry_values(request, scope, status, response))
    except Exception:
        # The database is down: the request log line (request id, key, route, status) remains.
        log.exception("audit entry for request %s not recorded", request.request_id)
