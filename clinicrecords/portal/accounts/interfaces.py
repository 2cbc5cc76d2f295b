from zope.interface import Interface


class IAccountService(Interface):
    """Portal accounts: sign up, log in (throttled), change password."""
