"""What other contexts may know of the review context: its services, looked up by interface."""

from zope.interface import Interface


class ISubmissionService(Interface):
    """The API side of the review queue for one clinic scope: submit (for the calling key), get_own, list_own,
    withdraw. Built from the clinic scope."""
