from zope.interface import Interface

from clinicrecords.access.interfaces import ILiveKeyGate  # noqa: F401  (the portal implements it)


class IKeyService(Interface):
    """A workspace's keys as its members manage them, every action audited. Refusals are FormError by field."""

    def keys(workspace_id):
        """The workspace's keys."""

    def key(workspace_id, key_id):
        """One of the workspace's keys by its public key id, or None."""

    def rolled(keys):
        """Which of these keys were rolled already (their ids): a key is rolled once."""

    def create(workspace_id, mode, ip_allow_text, account_id, name_text="", access_choice="all", ticked=()):
        """(ApiKey, full key). Every field's problem at once; a live key only when the live-key gate is open.
        `access_choice` "restricted" narrows the key to the `ticked` permissions."""

    def revoke(workspace_id, key, account_id):
        """Revoke the key at once."""

    def roll(workspace_id, key, overlap_choice, account_id):
        """(new ApiKey, full key); the old key works until the overlap chosen ends. A key is rolled once."""

    def set_ip_allow(workspace_id, key, text, account_id):
        """Replace the key's IP allow-list (CIDRs, one a line; empty: any address)."""
