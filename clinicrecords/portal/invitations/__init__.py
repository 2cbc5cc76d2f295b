"""The invitation link's page both faces show, written once: `/invitations?token=…` (a workspace's) and
`/staff-invitations?token=…` (a clinic's staff). Anyone holding the link sees whom it is for and as what; the
invited account joins signed in, and a person invited to a clinic's staff without an account sets a password
there (the account is created and signed in). The invitations are the identity context's one service; each face
declares its link's page (`InvitationLink`, `resources.py`) and hangs the page on it with
`add_invitation_pages` (`pages.py`)."""

from clinicrecords.portal.invitations.pages import add_invitation_pages

__all__ = ["add_invitation_pages"]
