from zope.interface import Interface


class IClinicKeyService(Interface):
    """A clinic's own keys as its admins manage them (always live, every permission, no live-key gate), every
    action audited with the clinic. Refusals are FormError by field."""

    def keys(clinic_id):
        """The clinic's unrevoked keys, newest first."""

    def key(clinic_id, key_id):
        """One of them by its public key id, or None."""

    def rolled(keys):
        """Which of these keys were rolled already (their ids): a key is rolled once."""

    def create(clinic_id, ip_allow_text, account_id, name_text=""):
        """(ApiKey, full key): always live, with every permission."""

    def revoke(clinic_id, key, account_id):
        """Revoke the key at once."""

    def roll(clinic_id, key, overlap_choice, account_id):
        """(new ApiKey, full key); the old key works until the overlap chosen ends."""

    def set_ip_allow(clinic_id, key, text, account_id):
        """Replace the key's IP allow-list (CIDRs, one a line; empty: any address)."""
