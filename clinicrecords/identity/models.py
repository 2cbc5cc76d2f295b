"""The identity context's tables (control schema): accounts and log-in failures, sessions and the devices
accounts signed in from, memberships of workspaces and of clinics' staff, invitations to either, the record of
API Terms acceptance, and second factors."""

import datetime
import uuid

from sqlalchemy import (ARRAY, BigInteger, CheckConstraint, ForeignKey, LargeBinary, String, UniqueConstraint, false,
                        func)
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase

WORKSPACE_ROLES = ("owner", "developer")
STAFF_ROLES = ("admin", "clinician")
# A staff member's roles as stored: one of these, in this order, so a set of roles has one spelling.
STAFF_ROLE_SETS = (("admin",), ("clinician",), ("admin", "clinician"))
INVITATION_KINDS = ("workspace", "clinic")
# What an emailed account link does: prove an address (sign-up, email change) or set a new password.
LINK_PURPOSES = ("verify_email", "reset_password")


def _array_in(column, sets):
    return f"CAST({column} AS text[]) IN ({', '.join(repr('{' + ','.join(s) + '}') for s in sets)})"


class Account(ControlBase):
    """A person who signs in, to the developer portal or to a clinic's console (never both). The email is kept
    lower-cased; the password as an argon2id hash; `email_verified_at` is when the address was proven (accounts
    older than the identity context count as verified from its migration)."""

    __tablename__ = "accounts"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    password_changed_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    email_verified_at: Mapped[datetime.datetime | None] = mapped_column()


class LoginFailure(ControlBase):
    """A failed log-in, for throttling per account (the email typed, known or not) and per address."""

    __tablename__ = "login_failures"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    email: Mapped[str] = mapped_column(String(254), index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)


class SecondStepFailure(ControlBase):
    """A wrong code at the second step of signing in or on the "Confirm it's you" page, counted per account and
    address and per account (`identity/throttle.py`, `CodeThrottle`): apart from the password's failures, and
    never cleared by a right password."""

    __tablename__ = "second_step_failures"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    address: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)


class AccountLink(ControlBase):
    """A single-use link mailed to a person: to verify `email` (the account's, or the new one it asked to
    change to) or to reset the password. Only a hash of the link's token is stored; it works once
    (`used_at`), until `expires_at`, and a reset link until a newer one is sent or the password changes
    (`void_at`)."""

    __tablename__ = "account_links"
    __table_args__ = (CheckConstraint("purpose IN ('verify_email', 'reset_password')", name="purpose"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id"), index=True)
    purpose: Mapped[str] = mapped_column(String(16))
    email: Mapped[str] = mapped_column(String(254))
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime.datetime] = mapped_column()
    used_at: Mapped[datetime.datetime | None] = mapped_column()
    void_at: Mapped[datetime.datetime | None] = mapped_column()


class MailRequest(ControlBase):
    """A form that asked for a message to `email` (sign-up, forgotten password, email change, sending the link
    again, an invitation), known address or not: counted per email and client address, per email and per client
    address so these forms cannot be used to flood someone's inbox. `by_owner`: asked by the signed-in owner of
    `email`, counted apart, so what strangers ask never refuses the owner. `by_inviter`: an invitation form's,
    never counted against the client address's own limit (an admin may invite a whole team)."""

    __tablename__ = "account_mail_requests"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    email: Mapped[str] = mapped_column(String(254), index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)
    by_owner: Mapped[bool] = mapped_column(default=False, server_default=false())
    by_inviter: Mapped[bool] = mapped_column(default=False, server_default=false())


class Session(ControlBase):
    """One signed-in browser. Only a hash of the cookie's token is stored: a copy of this table opens nothing.
    What the sessions page shows of it: the browser's user agent as it sent it at sign-in, the client address
    it was last seen from, when it signed in and was last seen. `reauthenticated_at` is when its person last
    proved it was them (signing in, the "Confirm it's you" page, a sensitive action in the window since)."""

    __tablename__ = "sessions"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    last_seen_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    ended_at: Mapped[datetime.datetime | None] = mapped_column()
    user_agent: Mapped[str | None] = mapped_column(String(512))
    address: Mapped[str | None] = mapped_column(String(64))
    reauthenticated_at: Mapped[datetime.datetime | None] = mapped_column()


class KnownDevice(ControlBase):
    """A browser an account signed in from: the SHA-256 of the random id its device cookie carries (a browser
    without one, or with one this account never signed in with, is a new device: its person is mailed)."""

    __tablename__ = "known_devices"
    __table_args__ = (UniqueConstraint("account_id", "device_hash"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id"))
    device_hash: Mapped[bytes] = mapped_column(LargeBinary(32))
    first_seen_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    last_seen_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now(), index=True)


class WorkspaceMember(ControlBase):
    """An account's membership of a workspace, as its owner (invites members, chooses the plan) or one of its
    developers (works with keys)."""

    __tablename__ = "workspace_members"
    __table_args__ = (CheckConstraint("role IN ('owner', 'developer')", name="role"),)

    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), primary_key=True)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class ClinicStaff(ControlBase):
    """An account's place on a clinic's staff, with its roles: an admin manages the clinic's key, automatic
    acceptance and staff; a clinician decides the review queue; one person may be both."""

    __tablename__ = "clinic_staff"
    __table_args__ = (CheckConstraint(_array_in("roles", STAFF_ROLE_SETS), name="roles"),)

    clinic_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clinics.id"), primary_key=True)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    roles: Mapped[list[str]] = mapped_column(ARRAY(String(16)))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class Invitation(ControlBase):
    """An invitation by one-time link, to a workspace (one role) or to a clinic's staff (its roles). Only a
    hash of the link's token is stored; it works once, until it expires or is cancelled, for that email."""

    __tablename__ = "invitations"
    __table_args__ = (CheckConstraint(
        "(kind = 'workspace' AND workspace_id IS NOT NULL AND clinic_id IS NULL AND "
        f"{_array_in('roles', [(role,) for role in WORKSPACE_ROLES])}) OR "
        "(kind = 'clinic' AND clinic_id IS NOT NULL AND workspace_id IS NULL AND "
        f"{_array_in('roles', STAFF_ROLE_SETS)})", name="kind_target_roles"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    kind: Mapped[str] = mapped_column(String(16))
    workspace_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("workspaces.id"), index=True)
    clinic_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clinics.id"), index=True)
    email: Mapped[str] = mapped_column(String(254))
    roles: Mapped[list[str]] = mapped_column(ARRAY(String(16)))
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    invited_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id"))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime.datetime] = mapped_column()
    accepted_at: Mapped[datetime.datetime | None] = mapped_column()
    cancelled_at: Mapped[datetime.datetime | None] = mapped_column()
    # When the link was mailed to the email (older invitations were shown on a page only).
    emailed_at: Mapped[datetime.datetime | None] = mapped_column()

    @property
    def target_id(self):
        return self.workspace_id if self.kind == "workspace" else self.clinic_id

    @property
    def role(self):
        """The first of the roles (a workspace invitation has one)."""
        return self.roles[0]


class TermsAcceptance(ControlBase):
    """A workspace's acceptance of one version of the API Terms, the one record of it (the API's reach reads
    it: `identity.services.terms_accepted`): by a member's account, or by a named person an operator recorded
    (`accepted_by_name`, with a `reference` such as a signed agreement's), and when. A new version is a new
    row."""

    __tablename__ = "terms_acceptances"
    __table_args__ = (CheckConstraint("(account_id IS NULL) <> (accepted_by_name IS NULL)", name="accepted_by"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), index=True)
    version: Mapped[str] = mapped_column(String(20))
    account_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id"))
    accepted_by_name: Mapped[str | None] = mapped_column(String(200))
    reference: Mapped[str | None] = mapped_column(String(500))
    accepted_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


# Second factors (decision 0086). A person has a second factor once an authenticator app is confirmed or a passkey is
# registered; recovery codes come with the first and never count alone.


class AuthenticatorApp(ControlBase):
    """A person's authenticator app (TOTP): the secret sealed with the application's webhook keys under the
    purpose `identity.totp_secret` and this row's id (identity/sealing.py). It counts once `confirmed_at` is set
    (a valid code typed at enrolment); `last_used_step` is the time step of the last code accepted, so each code
    is accepted once. One per account, pending or confirmed."""

    __tablename__ = "authenticator_apps"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id"), unique=True)
    sealed_secret: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    confirmed_at: Mapped[datetime.datetime | None] = mapped_column()
    last_used_step: Mapped[int | None] = mapped_column(BigInteger)
    last_used_at: Mapped[datetime.datetime | None] = mapped_column()


class Passkey(ControlBase):
    """A passkey (WebAuthn credential) of a person, named by them: the credential id and public key the
    authenticator made, its sign count, and the random user handle the account's passkeys share (never the
    email). Several per account."""

    __tablename__ = "passkeys"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id"), index=True)
    credential_id: Mapped[bytes] = mapped_column(LargeBinary(1023), unique=True)
    public_key: Mapped[bytes] = mapped_column(LargeBinary(2048))
    sign_count: Mapped[int] = mapped_column(BigInteger)
    transports: Mapped[list[str]] = mapped_column(ARRAY(String(32)))
    user_handle: Mapped[bytes] = mapped_column(LargeBinary(64))
    name: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    last_used_at: Mapped[datetime.datetime | None] = mapped_column()


class RecoveryCode(ControlBase):
    """One of a person's ten recovery codes, stored as a keyed salted hash (identity/recovery_codes.py); used
    once (`used_at`). A new set replaces the old rows."""

    __tablename__ = "recovery_codes"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("accounts.id"), index=True)
    code_hash: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    used_at: Mapped[datetime.datetime | None] = mapped_column()


class WorkspaceFactorRule(ControlBase):
    """A workspace whose owner requires a second factor of every member: members without one are led to enrol
    before its pages open. No row: not required."""

    __tablename__ = "workspace_factor_rules"

    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), primary_key=True)
    required_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id"))
    required_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())


class PendingSignIn(ControlBase):
    """A browser past the password step whose second step is due (`account_id`), or one that asked for a
    password-free passkey ceremony (`account_id` None). It is no session: its cookie's token (only the hash is
    kept) opens the second step's page and nothing else. `challenge` is the passkey ceremony's, used once."""

    __tablename__ = "pending_sign_ins"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    account_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("accounts.id"), index=True)
    challenge: Mapped[bytes | None] = mapped_column(LargeBinary(64))
    # The client address that asked for a password-free ceremony (counted per address); None for the others.
    address: Mapped[str | None] = mapped_column(String(64), index=True)
    created_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
    expires_at: Mapped[datetime.datetime] = mapped_column(index=True)
