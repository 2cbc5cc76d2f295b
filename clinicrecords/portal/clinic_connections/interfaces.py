from zope.interface import Interface


class IClinicConnections(Interface):
    """Connection requests and connections, from both sides: an organization asks, a clinic admin decides,
    narrows and revokes."""
