from zope.interface import Interface


class IAccessReport(Interface):
    """Who read what: a patient's records as the API's audit trail shows them read or written."""
