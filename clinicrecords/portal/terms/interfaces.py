from zope.interface import Interface


class ITermsService(Interface):
    """The API Terms: current version and text, a workspace's acceptances, accepting."""

    def text(version=None):
        """The text of a version (the current one by default)."""

    def latest(workspace_id):
        """The workspace's latest acceptance, or None."""

    def accepted_current(workspace_id):
        """Whether the workspace accepted the current version."""

    def accept(workspace_id, account_id, version):
        """Accept `version`, the one the member read (the form says which): an outdated page fails."""
