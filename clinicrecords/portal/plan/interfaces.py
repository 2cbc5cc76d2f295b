from zope.interface import Interface


class IPlanService(Interface):
    """A workspace's plan, its monthly allowance and this month's usage against it."""
