from zope.interface import Interface


class ITermsService(Interface):
    """The API Terms: current version and text, a workspace's acceptances, accepting."""
