"""The web foundation's services, looked up by interface (clinicrecords.services)."""

from zope.interface import Interface


class ISessionService(Interface):
    """Server-side sessions of the portal's accounts."""

    def start(account_id):
        """(token, identity) of a new session: the token goes in the cookie, only its hash is stored."""

    def resume(token):
        """The identity of the session this cookie's token names, or None (unknown, ended, idle or too old);
        a resumed session counts as seen now."""

    def end(token):
        """Sign out the session this token names."""

    def end_all_but(account_id, session_id):
        """After a password change: every other browser signed in as this account is signed out."""


class IPortalAudit(Interface):
    """The portal's audit trail: who did what, in which workspace or clinic."""

    def record(action, *, account_id, workspace_id=None, clinic_id=None, target=None, **details):
        """Add an entry in the caller's transaction (`account_id` None: an operator)."""

    def for_workspace(workspace_id, limit=100):
        """The workspace's entries, newest first."""

    def for_clinic(clinic_id, limit=100):
        """The clinic's entries, newest first."""


class IOneTimeReads(Interface):
    """What a POST's answer shows once, stashed for the page it redirects to (clinicrecords.portal.web.once)."""

    def put(kind, value):
        """Stash a JSON-able `value` for this session; returns the read's id (a uuid)."""

    def take(kind, read_id):
        """The value stashed as `kind` under `read_id` by this session, deleted as it is read; None when it was
        read already, expired, or is another session's or another kind's."""
