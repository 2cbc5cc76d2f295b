"""The web foundation's services, looked up by interface (clinicrecords.services)."""

from zope.interface import Interface


class ISessionService(Interface):
    """Server-side sessions: start(account_id) → (token, identity), resume(token), end(token)."""


class IPortalAudit(Interface):
    """The portal's audit trail: record(action, account_id, workspace_id, target, details)."""


class IOneTimeReads(Interface):
    """What a POST's answer shows once, stashed for the page it redirects to: put(kind, value) → id,
    take(kind, id) → the value once, then None (clinicrecords.portal.web.once)."""
