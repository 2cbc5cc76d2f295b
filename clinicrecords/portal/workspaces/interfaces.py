from zope.interface import Interface


class IWorkspaceService(Interface):
    """Workspaces as members see them: theirs only; creation with its sandbox; members and invitations."""
