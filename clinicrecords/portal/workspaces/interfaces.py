from zope.interface import Interface


class IWorkspaceService(Interface):
    """Workspaces as members see them: theirs only; creation with its sandbox; members and invitations."""

    def memberships(account_id):
        """The account's workspaces with its role in each (`Membership`)."""

    def membership(account_id, workspace_id):
        """The account's `Membership` of this workspace, or None (absent or not a member: one answer)."""

    def create(account_id, name):
        """A workspace with its seeded sandbox clinic (as `workspace create` does), its creator its owner."""

    def activity(workspace_id):
        """(entry, member's email or None for an operator, its target's NamedTarget or None), newest first."""

    def members(workspace_id):
        """Rows of (email, role, created_at), oldest first."""

    def pending_invitations(workspace_id):
        """Invitations neither used nor expired, oldest first."""

    def invite(workspace_id, email, role, invited_by):
        """(invitation, token): the token is in the link only, never stored."""

    def invitation(token):
        """The open invitation this link's token names, or None (unknown, used or expired)."""

    def accept(token, account_id):
        """Join the invitation's workspace as the signed-in account; FormError when it cannot."""
