from zope.interface import Interface


class IClinicConnections(Interface):
    """Connection requests and connections, from both sides: an organization asks, a clinic admin decides,
    narrows and revokes. Every decision is audited; refusals are FormError by field."""

    def request(workspace_id, clinic_text, scopes, account_id):
        """An organization asks a clinic (named by its id) for these permissions."""

    def withdraw(workspace_id, request_text, account_id):
        """The organization takes back its request while it waits (status `withdrawn`); an id malformed,
        unknown, another workspace's or no longer pending is refused with one message (FormError on
        `request_id`)."""

    def requests_of_workspace(workspace_id):
        """The workspace's requests, newest first."""

    def requests_of_clinic(clinic_id):
        """The requests to the clinic, pending ones first, newest first."""

    def pending_request(clinic_id, request_id):
        """A pending request to this clinic, or None."""

    def request_of_clinic(clinic_id, request_id):
        """A request to this clinic, whatever its status, or None (another clinic's finds nothing)."""

    def connections(clinic_id):
        """The clinic's connections, active first (revoked ones stay listed)."""

    def connection(clinic_id, workspace_id):
        """The clinic's connection with a workspace, or None."""

    def approve(clinic_id, request, scopes, expires_on, account_id):
        """Grant the request (the permissions ticked, an optional expiry: the end of that day in the clinic's
        time zone)."""

    def decline(clinic_id, request, account_id):
        """Refuse the request."""

    def narrow(clinic_id, connection, scopes, expires_on, account_id):
        """Grant fewer permissions, or set an earlier expiry."""

    def revoke(clinic_id, connection, account_id):
        """End the connection at once."""

    def deciders(clinic_id):
        """(action, workspace id text) → who did it last (an email, or None for an operator)."""

    def workspace_name(workspace_id):
        """The organization's name."""

    def first_expiry_day(clinic):
        """The earliest expiry date the form takes (today, in the clinic's time zone)."""

    def expiry_day(clinic, expires_at):
        """A connection's expiry as the date the form shows (the clinic's), or None."""
