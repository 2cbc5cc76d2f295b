"""What one request learns on its way and later steps read: `request.state`, one typed object per request.

Tweens, view derivers, renderers and the security policy hand each other these facts; each field says who
writes it and who reads it, so a reader follows a value from here rather than hunting `request.<name> = ...`.
A request gets a fresh state (pyramid_retry's next attempt is a new request, so it starts again).
"""

from dataclasses import dataclass, field

from pyramid.decorator import reify

# `RequestState.key_identity` before the security policy has read the request's key.
UNREAD = object()


@dataclass(slots=True)
class RequestState:
    # What the view's `body_schema` and `query_schema` read (api.validation's deriver): the view reads them
    # as `request.validated` and `request.query`.
    body: dict | None = None
    query: dict | None = None
    # The services built for this request, by (interface, name, id(context)) (clinicrecords.services).
    services: dict = field(default_factory=dict)
    # The identity the key gate accepted (access), so the gate runs once however often it is asked.
    gated_identity: object | None = None
    # The calling key's identity as the key security policy read it (access.security_policy: by the gate, or
    # for a refusal's log line), None for a bad key or none; `UNREAD` until then. Read once per request.
    key_identity: object = UNREAD
    # What the request owes apart once its transaction has ended, unless its COMMIT carried it (db.commit_or_apart:
    # the idempotency store and the audit trail owe, the tween outside pyramid_tm writes).
    owed_apart: list = field(default_factory=list)
    # The ids of the records the answer shows, or None for an answer render_one/render_page did not build
    # (api.representations writes; the audit trail reads).
    shown_record_ids: list | None = None
    # Records a write touched that its answer does not show (a removed record's patient): for the audit trail.
    touched_record_ids: list = field(default_factory=list)
    # The problem answer built for this request, as (Problem, Response): rendered once, stored for an
    # idempotent refusal and then sent by the error view (api.problems).
    problem_answer: tuple | None = None
    # The problem code of the answer, for the request log (api.problems, and api.idempotency's replay of a
    # stored refusal).
    problem_code: str | None = None
    # Headers every answer to this request carries, whatever it turns out to be (the rate limit's RateLimit-*):
    # set by the request log's tween with the request id, in one pass over the answer's headers.
    answer_headers: dict = field(default_factory=dict)
    # Whether the portal's signed-in account is staff, asked once per request (portal.staff).
    portal_is_staff: bool | None = None
    # The pre-sign-in CSRF token this answer sets as a cookie (portal.web.csrf): one per request, however
    # many forms the page shows.
    portal_csrf_cookie: str | None = None
    # The portal page loads the passkey script (portal.web.headers.loads_passkey_script, called by the view):
    # "inline" (its options in the page) or "fetches" (it fetches them); the headers allow it on this page only.
    portal_passkey_script: str | None = None
    # The page shows a copy button and loads the portal's copy script (its template asks
    # portal.web.headers.copy_script as it renders the button); the headers allow `script-src 'self'`.
    portal_copy_script: bool = False
    # The templates of the messages the mail guard withheld during this request (mail.services writes; the
    # portal's pages read, to say an email could not be sent).
    mail_withheld: list = field(default_factory=list)


class StatefulRequest:
    """Request mixin: `request.state`, built on first use, and the view's parsed input."""

    @reify
    def state(self) -> RequestState:
        return RequestState()

    @property
    def validated(self) -> dict | None:
        """The body as the view's `body_schema` read it."""
        return self.state.body

    @property
    def query(self) -> dict | None:
        """The query as the view's `query_schema` read it."""
        return self.state.query
