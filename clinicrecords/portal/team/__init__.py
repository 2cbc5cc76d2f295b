"""The team pages both faces show, written once (decision 0094): a workspace's members (owner or developer)
and a clinic's staff (admin and/or clinician). Anyone there sees the team, its open invitations and may leave;
who manages it (an owner, an admin) invites by email (the link also shown once, for copying), cancels an
invitation, changes a person's roles (making another member owner is how ownership passes on) and removes a
person. The rules (a place keeps one who manages it) are the identity context's `ITeamService` and
`IInvitationService`; each face declares its area (`TeamArea`, `resources.py`) and hangs the pages on it with
`add_team_pages` (`pages.py`)."""

from clinicrecords.portal.team.pages import add_team_pages

__all__ = ["add_team_pages"]
