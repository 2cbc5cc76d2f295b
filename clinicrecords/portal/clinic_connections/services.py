"""Connections as people make them (decision 0033): an organization asks a clinic for permissions from the
developer portal; the clinic's admin approves permission by permission (fewer may be granted) with an
optional expiry, or declines; later narrows or revokes. The grant itself is access's `grant_connection` /
`revoke_connection` (as `connection grant|revoke`), which the API's reach reads on the next call."""

import datetime
import uuid
import zoneinfo

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import ALL_PERMISSIONS, ConnectionRequested
from clinicrecords.clock import now
from clinicrecords.identity.services import IAccountService
from clinicrecords.portal.clinic_connections.interfaces import IClinicConnections
from clinicrecords.portal.clinic_connections.models import ConnectionRequest
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.publishing import request_publisher


NOT_WAITING = "This request is not waiting for an answer: it was answered or withdrawn already"


def _zone(clinic):
    try:
        return zoneinfo.ZoneInfo(clinic.timezone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return datetime.UTC


def _expiry(text, now, zone=datetime.UTC):
    """An optional date (YYYY-MM-DD, as the date field sends it): the end of that day in the clinic's time zone,
    which must be in the future."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise FormError("expires_on", "Enter the expiry date like 2027-12-31, or leave it empty") from None
    if day.year < 2000:
        raise FormError("expires_on", "Enter an expiry date in the future, or leave it empty")
    try:
        moment = datetime.datetime.combine(day, datetime.time(23, 59, 59), zone).astimezone(datetime.UTC)
    except OverflowError:
        raise FormError("expires_on", "Enter the expiry date like 2027-12-31, or leave it empty") from None
    if moment <= now:
        raise FormError("expires_on", "Enter an expiry date in the future, or leave it empty")
    return moment


@implementer(IClinicConnections)
class ClinicConnections:
    def __init__(self, db, audit, accounts, publish, clock=now):
        self.db = db
        self.accounts = accounts
        self.audit = audit
        self.publish = publish  # tells of each moment (clinicrecords.publishing): the notifications listen
        self.clock = clock

    # The organization's side

    def request(self, workspace_id, clinic_text, scopes, account_id):
        try:
            clinic = access.get_clinic(self.db, uuid.UUID((clinic_text or "").strip()))
        except (ValueError, access.AccessError):
            raise FormError("clinic_id", "Enter the id the clinic gave you, like "
                                         "3f2b8c1e-0000-4000-8000-000000000000") from None
        if clinic.is_sandbox:
            raise FormError("clinic_id",
                            "That is a sandbox clinic: test keys reach their own sandbox at once")
        scopes = sorted(set(scopes))
        if not scopes or set(scopes) - ALL_PERMISSIONS:
            raise FormError("scopes", "Choose at least one permission")
        if self.db.scalar(select(ConnectionRequest.id).where(
                ConnectionRequest.workspace_id == workspace_id, ConnectionRequest.clinic_id == clinic.id,
                ConnectionRequest.status == "pending")):
            raise FormError("clinic_id", "A request to this clinic is already waiting for its answer")
        request = ConnectionRequest(workspace_id=workspace_id, clinic_id=clinic.id, scopes=scopes,
                                    requested_by=account_id)
        self.db.add(request)
        self.audit.record("connection.requested", account_id=account_id, workspace_id=workspace_id,
                          target=str(clinic.id), scopes=scopes)
        self.db.flush()
        self.publish(ConnectionRequested(workspace_id, clinic.id, tuple(scopes)))
        return request

    def withdraw(self, workspace_id, request_text, account_id):
        """The organization takes back a request still waiting for the clinic's answer. An id that is malformed,
        unknown, another workspace's or already answered gets the one message: nothing here tells whether a
        request (or its clinic) exists beyond the workspace's own."""
        try:
            request_id = uuid.UUID((request_text or "").strip())
        except ValueError:
            request_id = None
        found = request_id and self.db.scalar(select(ConnectionRequest).where(
            ConnectionRequest.id == request_id, ConnectionRequest.workspace_id == workspace_id,
            ConnectionRequest.status == "pending").with_for_update())
        if not found:
            raise FormError("request_id", NOT_WAITING)
        found.status, found.decided_by, found.decided_at = "withdrawn", account_id, self.clock()
        self.audit.record("connection.withdrawn", account_id=account_id, workspace_id=workspace_id,
                          target=str(found.clinic_id))
        self.db.flush()
        return found

    def requests_of_workspace(self, workspace_id):
        return self.db.scalars(select(ConnectionRequest).where(ConnectionRequest.workspace_id == workspace_id)
                               .order_by(ConnectionRequest.requested_at.desc())).all()

    # The clinic's side

    def requests_of_clinic(self, clinic_id):
        return self.db.scalars(select(ConnectionRequest).where(ConnectionRequest.clinic_id == clinic_id)
                               .order_by(ConnectionRequest.status != "pending",
                                         ConnectionRequest.requested_at.desc())).all()

    def pending_request(self, clinic_id, request_id):
        return self.db.scalar(select(ConnectionRequest).where(
            ConnectionRequest.id == request_id, ConnectionRequest.clinic_id == clinic_id,
            ConnectionRequest.status == "pending"))

    def request_of_clinic(self, clinic_id, request_id):
        return self.db.scalar(select(ConnectionRequest).where(
            ConnectionRequest.id == request_id, ConnectionRequest.clinic_id == clinic_id))

    def connections(self, clinic_id):
        """The clinic's connections, active first (revoked ones stay listed)."""
        rows = access.list_connections(self.db, clinic_id=clinic_id)
        return sorted(rows, key=lambda c: (c.revoked_at is not None, c.connected_at))

    def connection(self, clinic_id, workspace_id):
        return next((c for c in access.list_connections(self.db, clinic_id=clinic_id)
                     if c.workspace_id == workspace_id and c.revoked_at is None), None)

    def approve(self, clinic_id, connection_request, scopes, expires_on, account_id):
        granted = sorted(set(scopes))
        if not granted:
            raise FormError("scopes", "Tick at least one permission, or decline the request")
        if set(granted) - set(connection_request.scopes):
            raise FormError("scopes", "Grant only permissions the organization asked for")
        expires_at = _expiry(expires_on, self.clock(), _zone(access.get_clinic(self.db, clinic_id)))
        if access.get_workspace(self.db, connection_request.workspace_id).closed_at is not None:
            raise FormError("scopes", "This organization closed its workspace: decline the request")
        access.grant_connection(self.db, connection_request.workspace_id, clinic_id, granted,
                                expires_at=expires_at, publish=self.publish)
        connection_request.status, connection_request.granted_scopes = "approved", granted
        connection_request.decided_by, connection_request.decided_at = account_id, self.clock()
        self.audit.record("connection.approved", account_id=account_id, clinic_id=clinic_id,
                          target=str(connection_request.workspace_id), scopes=granted,
                          expires_at=expires_at.isoformat() if expires_at else None)
        self.db.flush()

    def decline(self, clinic_id, connection_request, account_id):
        connection_request.status = "declined"
        connection_request.decided_by, connection_request.decided_at = account_id, self.clock()
        self.audit.record("connection.declined", account_id=account_id, clinic_id=clinic_id,
                          target=str(connection_request.workspace_id))
        self.db.flush()

    def narrow(self, clinic_id, connection, scopes, expires_on, account_id):
        kept = sorted(set(scopes))
        if not kept:
            raise FormError("scopes", "Keep at least one permission, or revoke the connection")
        if set(kept) - set(connection.scopes):
            raise FormError("scopes",
                            "A connection can only be narrowed here: the organization asks again for more")
        expires_at = _expiry(expires_on, self.clock(), _zone(access.get_clinic(self.db, clinic_id)))
        access.grant_connection(self.db, connection.workspace_id, clinic_id, kept, expires_at=expires_at,
                                publish=self.publish)
        self.audit.record("connection.narrowed", account_id=account_id, clinic_id=clinic_id,
                          target=str(connection.workspace_id), scopes=kept,
                          expires_at=expires_at.isoformat() if expires_at else None)

    def revoke(self, clinic_id, connection, account_id):
        access.revoke_connection(self.db, connection.workspace_id, clinic_id, publish=self.publish)
        self.audit.record("connection.revoked", account_id=account_id, clinic_id=clinic_id,
                          target=str(connection.workspace_id))

    def deciders(self, clinic_id):
        """(action, workspace id text) → who did it last (an email, or None for an operator), from the portal
        audit trail: who approved, declined, narrowed or revoked."""

        entries = [e for e in self.audit.for_clinic(clinic_id, limit=1000)
                   if e.action.startswith("connection.")]
        emails = self.accounts.emails(e.account_id for e in entries)
        found = {}
        for entry in entries:  # newest first: the first one seen is the latest
            found.setdefault((entry.action, entry.target), emails.get(entry.account_id, "an operator"))
        return found

    def workspace_name(self, workspace_id):
        return access.get_workspace(self.db, workspace_id).name

    def first_expiry_day(self, clinic):
        """The earliest expiry date the form takes: today, in the clinic's time zone (the end of today is still
        ahead)."""
        return self.clock().astimezone(_zone(clinic)).date()

    def expiry_day(self, clinic, expires_at):
        """A connection's expiry as the date the form shows: the day it ends on, in the clinic's time zone."""
        return expires_at.astimezone(_zone(clinic)).date() if expires_at else None


def clinic_connections_factory(context, request):
    return ClinicConnections(request.db, request.find_service(IPortalAudit), request.find_service(IAccountService),
                             request_publisher(request))
