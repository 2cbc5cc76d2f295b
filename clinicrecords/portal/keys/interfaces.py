from zope.interface import Interface

from clinicrecords.access.interfaces import ILiveKeyGate  # noqa: F401  (the portal implements it)


class IKeyService(Interface):
    """A workspace's keys as its members manage them: list, create, revoke, roll, IP allow-list."""
