from zope.interface import Interface


class IAutoAcceptSettings(Interface):
    """Automatic acceptance per sender (organization or key) and kind, as a clinic's admins set it."""

    def kinds():
        """The review kinds' names, sorted."""

    def senders(clinic_id):
        """The connected organizations, their live keys and the clinic's own keys, with their settings."""

    def pause_rule():
        """(threshold, window in minutes) of the pause on unusual volume."""

    def save(clinic_id, ref, checked, account_id):
        """Switch on the newly ticked kinds and off the newly unticked ones, for one sender: (on, off)."""

    def resume(clinic_id, ref, kind, account_id):
        """Lift a pause on unusual volume of one sender and kind."""
