"""Invitations, one service for both faces: to a workspace (kind "workspace", one role: owner or developer) and
to a clinic's staff (kind "clinic", admin and/or clinician). An owner, a clinic's admin or an operator
(`portal invite-link`, `clinic staff add`) invites; the link works once, for 7 days, for that email. An invitation
from a portal form counts in the mail throttle as a stranger's request for that email (`mail_throttle`).

Following a workspace link, the signed-in account of that email joins. Following a clinic link, a person
without an account sets a password (the account is created), a person with a staff account signs in and joins.
An account stays a partner's or a clinic's: a developer portal account never joins a clinic's staff (a staff
account never opens the developer portal's pages: the permission map). A clinic's admin who invites a developer's
email is answered as for any other address (the invitation is made and listed, so the answer does not tell which
addresses have a developer account); the invited person is mailed what to do instead of a link to join. The
operator, whose system it is, is told (`clinic staff add` exits 2)."""

import datetime

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.clinics.services import find_clinic
from clinicrecords.clock import now
from clinicrecords.errors import FieldErrors
from clinicrecords.identity.accounts import email_problem, normal_email
from clinicrecords.identity.interfaces import IAccountService, IAuditTrail, IInvitationService, IMembershipService
from clinicrecords.identity.mail_throttle import MailThrottle
from clinicrecords.identity.memberships import staff_roles_stored
from clinicrecords.identity.models import STAFF_ROLES, WORKSPACE_ROLES, Invitation
from clinicrecords.identity.tokens import new_token, token_hash
from clinicrecords.mail.interfaces import IMail

INVITATION_LIFETIME = datetime.timedelta(days=7)


class _Kind:
    """What differs between the two kinds: roles, the words of refusals, the audit's actions, the link's page."""

    def __init__(self, name, roles, choose, already, used_field, used, invited, joined, cancelled, link_path):
        self.name, self.roles, self.choose, self.already = name, roles, choose, already
        self.used_field, self.used, self.invited, self.joined = used_field, used, invited, joined
        self.cancelled, self.link_path = cancelled, link_path

    def audit_target(self, target_id):
        return {f"{self.name}_id": target_id}


KINDS = {
    "workspace": _Kind("workspace", WORKSPACE_ROLES, "Choose owner or developer",
                       "This person is already a member of the workspace", "token",
                       "This invitation has been used or has expired", "member.invited", "member.added",
                       "member.invitation_cancelled", "/invitations"),
    "clinic": _Kind("clinic", STAFF_ROLES, "Choose admin, clinician or both",
                    "This person is already on the clinic's staff", "password",
                    "This link has been used or has expired: ask for a new one", "staff.invited", "staff.joined",
                    "staff.invitation_cancelled", "/staff-invitations"),
}
DEVELOPER_EMAIL = ("This email has a developer portal account: clinic staff need an account of their own, "
                   "with another email address")


def roles_text(roles):
    """"developer", "admin and clinician": roles as a message or a page says them."""
    return " and ".join(roles)


def roles_asked(kind, roles):
    # A form's or the operator's "admin,clinician" names both.
    roles = roles.split(",") if isinstance(roles, str) else list(roles or ())
    if not roles or any(role not in kind.roles for role in roles):
        raise FieldErrors("role", kind.choose)
    if kind.name == "workspace":
        if len(roles) != 1:
            raise FieldErrors("role", kind.choose)
        return roles
    return staff_roles_stored(roles)


def _audit_details(invitation):
    # `role` as before (the first), `roles` where a staff member may hold both.
    details = {"role": invitation.role}
    if invitation.kind == "clinic":
        details["roles"] = list(invitation.roles)
    return details


@implementer(IInvitationService)
class InvitationService:
    def __init__(self, db, audit, accounts, memberships, mail, clock=now):
        self.db = db
        self.audit = audit
        self.accounts = accounts
        self.memberships = memberships
        self.mail = mail
        self.clock = clock
        self.mail_throttle = MailThrottle(db, clock=clock)

    def invite(self, place, email, roles, invited_by, address=None):
        kind, target_id = place.kind, place.id
        how = KINDS[kind]
        email = normal_email(email)
        if address is not None:
            # A portal form's, counted before it is judged as a stranger's request for mail to that email, without
            # meeting or counting toward the address's own limit (one admin invites a whole team). The operator's (no
            # address) is not counted.
            self.mail_throttle.count(email, address, by_inviter=True)
        problem = email_problem(email)
        if problem:
            raise FieldErrors("email", problem.replace("your email", "the email"))
        roles = roles_asked(how, roles)
        if kind == "clinic":
            clinic = find_clinic(self.db, target_id)
            if clinic is None:
                raise FieldErrors("clinic", f"no clinic {target_id}")
            if clinic.sandbox_of_workspace_id is not None:
                raise FieldErrors("clinic", "A workspace's sandbox clinic has no staff: its workspace drives it")
            developer = self._is_developer(email)
            if developer and invited_by is None:
                raise FieldErrors("email", DEVELOPER_EMAIL)
        if email in {member.email for member in self._members(kind, target_id)}:
            raise FieldErrors("email", how.already)
        token = new_token()
        invitation = Invitation(kind=kind, email=email, roles=roles, token_hash=token_hash(token),
                                invited_by=invited_by, expires_at=self.clock() + INVITATION_LIFETIME,
                                **how.audit_target(target_id))
        self.db.add(invitation)
        self.audit.record(how.invited, account_id=invited_by, target=email, **how.audit_target(target_id),
                          **_audit_details(invitation))
        if kind == "clinic" and developer:
            self._mail_developer(place, invitation, invited_by)
        else:
            self._mail_invitation(place, invitation, token, invited_by)
        self.db.flush()
        return invitation, token

    def _mail_developer(self, place, invitation, invited_by):
        # No link: the account cannot join; the person is told why and what to ask for instead.
        self.mail.send("invitation_developer", invitation.email, regarding=place.regarding, joining=place.joining,
                       roles=roles_text(invitation.roles), inviter=self.accounts.emails([invited_by])[invited_by])
        invitation.emailed_at = self.clock()

    def _mail_invitation(self, place, invitation, token, invited_by):
        inviter = self.accounts.emails([invited_by]).get(invited_by) if invited_by else None
        sent = self.mail.send("invitation", invitation.email, regarding=place.regarding, joining=place.joining,
                              roles=roles_text(invitation.roles), inviter=inviter, kind=place.kind,
                              link=self.mail.link(KINDS[place.kind].link_path, token=token),
                              days=INVITATION_LIFETIME.days,
                              new_person=place.kind == "clinic" and self.needs_password(invitation))
        if sent.withheld is None:  # a withheld message leaves the link to be handed over as shown
            invitation.emailed_at = self.clock()

    def cancel(self, place, invitation_id, cancelled_by):
        how = KINDS[place.kind]
        target = Invitation.workspace_id if place.kind == "workspace" else Invitation.clinic_id
        invitation = self.db.scalar(select(Invitation).where(
            Invitation.id == invitation_id, Invitation.kind == place.kind, target == place.id, *self._open())
            .with_for_update())
        if invitation is None:
            raise FieldErrors("invitation", "This invitation was already used, cancelled or has expired")
        invitation.cancelled_at = self.clock()
        self.audit.record(how.cancelled, account_id=cancelled_by, target=invitation.email,
                          **how.audit_target(place.id), **_audit_details(invitation))
        if invitation.emailed_at is not None:
            self.mail.send("invitation_cancelled", invitation.email, regarding=place.regarding,
                           joining=place.joining)
        self.db.flush()
        return invitation

    def _members(self, kind, target_id):
        if kind == "workspace":
            return self.memberships.workspace_members(target_id)
        return self.memberships.staff_members(target_id)

    def _is_developer(self, email):
        account = self.accounts.by_email(email)
        return account is not None and self.accounts.kind(account.id) == "developer"

    def _refuse_developer(self, email):
        if self._is_developer(email):
            raise FieldErrors("email", DEVELOPER_EMAIL)

    def pending(self, kind, target_id):
        target = Invitation.workspace_id if kind == "workspace" else Invitation.clinic_id
        return self.db.scalars(select(Invitation).where(
            Invitation.kind == kind, target == target_id, *self._open()).order_by(Invitation.created_at)).all()

    def _open(self):
        return (Invitation.accepted_at.is_(None), Invitation.cancelled_at.is_(None),
                Invitation.expires_at > self.clock())

    def invitation(self, token, kind=None):
        statement = select(Invitation).where(Invitation.token_hash == token_hash(token or ""), *self._open())
        if kind is not None:
            statement = statement.where(Invitation.kind == kind)
        return self.db.scalar(statement)

    def link_state(self, token, kind=None):
        statement = select(Invitation).where(Invitation.token_hash == token_hash(token or ""))
        if kind is not None:
            statement = statement.where(Invitation.kind == kind)
        invitation = self.db.scalar(statement)
        if invitation is None:
            return None
        if invitation.accepted_at is not None:
            return "used"
        if invitation.cancelled_at is not None:
            return "cancelled"
        return "expired" if invitation.expires_at <= self.clock() else "open"

    def needs_password(self, invitation):
        return self.accounts.by_email(invitation.email) is None

    def accept(self, token, account_id=None, password=None, kind=None):
        invitation = self.invitation(token, kind)
        if invitation is None:
            how = KINDS[kind or "workspace"]
            raise FieldErrors(how.used_field, how.used)
        how = KINDS[invitation.kind]
        if invitation.kind == "clinic":
            self._refuse_developer(invitation.email)
            existing = self.accounts.by_email(invitation.email)
            if existing is None:
                account_id = self.accounts.sign_up(invitation.email, password or "", verified=True).id
            elif existing.id != account_id:
                raise FieldErrors("password", f"This link is for {invitation.email}: log in with that email first")
            self.memberships.add_staff_member(invitation.clinic_id, account_id, invitation.roles)
        else:
            email = self.accounts.emails([account_id]).get(account_id)
            if email != invitation.email:
                raise FieldErrors("token", f"This invitation is for {invitation.email}: log in with that email")
            self.memberships.add_workspace_member(invitation.workspace_id, account_id, invitation.role)
            account = self.accounts.get(account_id)
            if invitation.emailed_at is not None and account.email_verified_at is None:
                account.email_verified_at = self.clock()  # the emailed link reached this address
        invitation.accepted_at = self.clock()
        self.audit.record(how.joined, account_id=account_id, target=invitation.email,
                          **how.audit_target(invitation.target_id), **_audit_details(invitation))
        self.db.flush()
        return account_id, invitation


def invitation_service_factory(context, request):
    return InvitationService(request.db, request.find_service(IAuditTrail), request.find_service(IAccountService),
                             request.find_service(IMembershipService), request.find_service(IMail))
