from zope.interface import Interface


class IConsoleService(Interface):
    """A clinic's staff as the console shows it: the account's places with their clinics, the activity trail.
    Who is on a staff and invitations are the identity context's (`IMembershipService`, `IInvitationService`)."""

    def memberships(account_id):
        """The clinics whose staff the account is on, with its roles in each (`StaffMembership`)."""

    def membership(account_id, clinic_id):
        """The account's `StaffMembership` of this clinic, or None."""

    def clinic(clinic_id):
        """The clinic (an invitation's, say)."""

    def activity(clinic_id):
        """The clinic's trail as `clinicrecords.portal.web.activity.ActivityRow`s, newest first: a sentence each,
        the time in the clinic's time zone, the patient a decision or a download was about, a decline's
        reason."""
