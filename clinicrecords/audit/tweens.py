"""The tween that records each request reaching an audited collection, exactly once.

It sits inside pyramid_tm: a successful answer's entry joins the request's transaction, so a write and its
audit row commit (or vanish) together. When no entry is committed (a refusal, a failure, an aborted commit),
one is written apart once the transaction has ended (`db.commit_or_apart`).
"""

from clinicrecords.api.errorviews import is_unavailable
from clinicrecords.audit import services
from clinicrecords.db.commit_or_apart import apart, with_commit


def audit_tween_factory(handler, registry):
    def audit(request):
        try:
            response = handler(request)
        except Exception:
            _owe_entry(request, None)
            raise
        _owe_entry(request, response)
        return response

    return audit


def _owe_entry(request, response):
    scope = services.audited_scope(request)
    if scope is None:
        return

    def entry_apart(outcome):
        # What the outcome was once the transaction ended: the answer's status, or 503/500 for a failed COMMIT.
        if outcome.response is not None:
            status = outcome.response.status_int
        else:
            status = 503 if is_unavailable(outcome.exception) else 500
        return services.entries_apart(scope.clinic_id,
                                      services.entries_values(request, scope, status, outcome.response))

    status = response.status_int if response is not None else None
    if status is not None and status < 400 and getattr(request, "exception", None) is None:
        for index, values in enumerate(services.entries_values(request, scope, status, response)):
            query, params = services.entry_with_commit(values)
            # What is written instead when the COMMIT does not happen is every entry: owed once.
            with_commit(request, query, params, else_apart=None if index else entry_apart)
    else:
        apart(request, entry_apart)
