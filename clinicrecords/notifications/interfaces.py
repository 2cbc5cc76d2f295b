"""What the portal uses of the notifications: each person's settings (`request.find_service(INotificationSettings)`)
and the kinds a settings page offers."""

from zope.interface import Interface

from clinicrecords.notifications.kinds import CLINIC, KINDS, WORKSPACE, Kind, kinds_of

__all__ = ["CLINIC", "INotificationSettings", "KINDS", "Kind", "WORKSPACE", "kinds_of"]


class INotificationSettings(Interface):
    """Which notifications a person gets: every one is on until they turn it off."""

    def enabled(account_id):
        """The names of the kinds the account gets (a frozenset; every kind while none was turned off)."""

    def choose(account_id, face, names):
        """Keep on exactly `names` of the kinds of `face` (WORKSPACE or CLINIC) and turn the others of that face
        off. FieldErrors "notify" for a name that is not one of that face's kinds; nothing is written then."""

    def wanting(kind, account_ids):
        """Those of `account_ids` who did not turn `kind` (a Kind) off, in the order given."""
