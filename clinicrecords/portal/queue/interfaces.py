from zope.interface import Interface


class IReviewQueue(Interface):
    """A clinic's review queue as its clinicians work it: pending submissions beside the chart, decisions."""
