from zope.interface import Interface


class IStaffService(Interface):
    """A clinic's staff: who is on it with which role, invitations (set-password links), joining."""
