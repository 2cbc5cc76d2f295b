"""The web foundation's services, looked up by interface (clinicrecords.services)."""

from zope.interface import Interface

from clinicrecords.identity.services import IAuditTrail


class IPortalAudit(IAuditTrail):
    """The portal's audit trail: who did what, in which workspace or clinic (`record`: IAuditTrail's)."""

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
