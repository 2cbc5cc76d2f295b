from zope.interface import Interface


class IClinicKeyService(Interface):
    """A clinic's own keys as its admins manage them: list, create (always live), revoke, roll, IP
    allow-list."""
