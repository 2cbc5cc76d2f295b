from zope.interface import Interface


class IStaffService(Interface):
    """A clinic's staff: who is on it with which role, invitations (set-password links), joining."""

    def memberships(account_id):
        """The clinics whose staff the account is on, with its role in each (`StaffMembership`)."""

    def membership(account_id, clinic_id):
        """The account's `StaffMembership` of this clinic, or None."""

    def is_staff(account_id):
        """Whether the account is on any clinic's staff (such an account opens no workspace)."""

    def members(clinic_id):
        """Rows of (email, role, created_at)."""

    def pending_invitations(clinic_id):
        """Invitations neither used nor expired."""

    def invite(clinic_id, email, role, invited_by):
        """(invitation, token): the token is in the link only, never stored."""

    def invitation(token):
        """The open invitation this link's token names, or None (unknown, used or expired)."""

    def clinic_of(invitation):
        """The clinic an invitation is to."""

    def activity(clinic_id):
        """(entry, staff member's email or None for an operator, its target's NamedTarget or None), newest
        first."""

    def needs_password(invitation):
        """Whether the invited email has no account yet (the link then sets a password)."""

    def join(token, password=None, account_id=None):
        """Accept the invitation, with a password for a new account or as the signed-in account of that email:
        (account id, clinic id)."""
