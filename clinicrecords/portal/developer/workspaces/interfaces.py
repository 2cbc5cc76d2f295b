from zope.interface import Interface


class IWorkspaceService(Interface):
    """Workspaces as members see them: theirs only; creation with its sandbox; the activity trail. Members and
    invitations are the identity context's (`IMembershipService`, `IInvitationService`)."""

    def memberships(account_id):
        """The account's workspaces with its role in each (`Membership`)."""

    def membership(account_id, workspace_id):
        """The account's `Membership` of this workspace, or None (absent, closed or not a member: one
        answer)."""

    def workspace(workspace_id):
        """The workspace (an invitation's, say)."""

    def create(account_id, name):
        """A workspace with its seeded sandbox clinic (as `workspace create` does), its creator its owner."""

    def close(workspace, account_id, typed_name):
        """Close the workspace once its name is typed exactly (FormError "name" otherwise): its webhook
        endpoints deleted, its invitations cancelled and members removed (each mailed), its keys revoked,
        connections ended and sandbox dropped (access's `close_workspace`); the row stays, closed. Audited."""

    def closed_for(account_id):
        """The closed workspaces the account was a member of when they closed: (name, closed_at, by whom)."""

    def activity(workspace_id):
        """The workspace's trail as `portal.web.activity.ActivityRow`s (a sentence each, the time in UTC, the
        target named), newest first: the last 100 actions."""
