from zope.interface import Interface


class IAutoAcceptSettings(Interface):
    """Automatic acceptance per sender (organization or key) and kind, as a clinic's admins set it."""
