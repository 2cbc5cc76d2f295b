from zope.interface import Interface


class IConnectionsView(Interface):
    """The clinics a workspace reaches, and what each granted, as one table."""
