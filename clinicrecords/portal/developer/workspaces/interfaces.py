from zope.interface import Interface


class IWorkspaceService(Interface):
    """Workspaces as members see them: theirs only; creation with its sandbox; the activity trail. Members and
    invitations are the identity context's (`IMembershipService`, `IInvitationService`)."""

    def memberships(account_id):
        """The account's workspaces with its role in each (`Membership`)."""

    def membership(account_id, workspace_id):
        """The account's `Membership` of this workspace, or None (absent or not a member: one answer)."""

    def workspace(workspace_id):
        """The workspace (an invitation's, say)."""

    def create(account_id, name):
        """A workspace with its seeded sandbox clinic (as `workspace create` does), its creator its owner."""

    def activity(workspace_id):
        """(entry, member's email or None for an operator, its target's NamedTarget or None), newest first."""
