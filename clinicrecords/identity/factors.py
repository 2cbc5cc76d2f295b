"""A person's second factors (decision 0086): an authenticator app (TOTP), passkeys, and the ten recovery codes that
come with the first of them; who must have one (a workspace's rule); and the operator's reset.

Built on the building blocks beside it (totp.py, recovery_codes.py, webauthn_ceremonies.py, sealing.py). The
TOTP secret is sealed with the sealer the caller hands over (the events context's, under
`identity.totp_secret`: identity imports no context that reads it) and the row's id. Each change that adds or
removes a factor, and each recovery code used, mails the person a notice in the same transaction.
"""

import datetime
import re
import uuid
from dataclasses import dataclass

from sqlalchemy import delete, exists, func, select, update
from sqlalchemy.exc import IntegrityError
from zope.interface import implementer

from clinicrecords.clock import now
from clinicrecords.errors import FieldErrors
from clinicrecords.identity.accounts import normal_email
from clinicrecords.identity.interfaces import IAuditTrail, IFactorService
from clinicrecords.identity.models import (Account, AuthenticatorApp, Passkey, PendingSignIn, RecoveryCode, Session,
                                           WorkspaceFactorRule)
from clinicrecords.identity.recovery_codes import RecoveryCodes, normal_recovery_code
from clinicrecords.identity.totp import AuthenticatorApps, normal_code
from clinicrecords.identity.webauthn_ceremonies import (KnownPasskey, PasskeyRefused, authentication_options,
                                                        credential_id_of, new_user_handle, registration_options,
                                                        verify_authentication, verify_registration)
from clinicrecords.mail.interfaces import IMail
from clinicrecords.mail.services import NAME_REFUSED, holds_link_or_key

NAME_LIMIT = 100
REGARDING = "your Clinic Records account"
TWO_FACTOR_PATH = "/account/two-factor"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

WRONG_CODE = "The code is not right: type the 6 digits your app shows now"
NO_SUCH_CODE = "The code is not right, or was used already: type a code from your app, or an unused recovery code"


@dataclass(frozen=True)
class PasskeyShown:
    """A passkey as its owner's page lists it."""

    id: object
    name: str
    created_at: datetime.datetime
    last_used_at: datetime.datetime | None


@dataclass(frozen=True)
class Factors:
    """What a person has: `app_confirmed_at` (None: no app, or one not confirmed yet: `app_pending`), their
    passkeys, and how many recovery codes are left unused."""

    app_confirmed_at: datetime.datetime | None
    app_last_used_at: datetime.datetime | None
    app_pending: bool
    passkeys: tuple
    recovery_codes_left: int

    @property
    def has_second_factor(self):
        return self.app_confirmed_at is not None or bool(self.passkeys)


def passkey_name_problem(name):
    if not name:
        return "Give the passkey a name, such as the device it is on"
    if len(name) > NAME_LIMIT:
        return f"A passkey's name is at most {NAME_LIMIT} characters"
    if _CONTROL.search(name):
        return "A passkey's name is one line of text"
    if holds_link_or_key(name):
        return f"A passkey's name {NAME_REFUSED}"
    return None


def has_second_factor_clause(account_id_column):
    """A SQL condition: the account in `account_id_column` has a confirmed app or a passkey."""
    return exists().where(AuthenticatorApp.account_id == account_id_column,
                          AuthenticatorApp.confirmed_at.is_not(None)) | exists().where(
        Passkey.account_id == account_id_column)


@implementer(IFactorService)
class FactorService:
    def __init__(self, db, sealer, codes, mail, audit, apps=None, clock=now):
        self.db = db
        self.sealer = sealer
        self.codes = codes
        self.mail = mail
        self.audit = audit
        self.clock = clock
        self.apps = apps or AuthenticatorApps(clock=clock)

    # What a person has.

    def factors(self, account_id):
        app = self._app(account_id)
        passkeys = tuple(PasskeyShown(row.id, row.name, row.created_at, row.last_used_at) for row in self.db.scalars(
            select(Passkey).where(Passkey.account_id == account_id).order_by(Passkey.created_at, Passkey.id)))
        left = self.db.scalar(select(func.count()).select_from(RecoveryCode).where(
            RecoveryCode.account_id == account_id, RecoveryCode.used_at.is_(None)))
        confirmed = app is not None and app.confirmed_at is not None
        return Factors(app.confirmed_at if confirmed else None, app.last_used_at if confirmed else None,
                       app is not None and not confirmed, passkeys, left)

    def has_second_factor(self, account_id):
        return self.db.scalar(select(has_second_factor_clause(account_id)))

    def accounts_with_second_factor(self, account_ids):
        ids = {account_id for account_id in account_ids if account_id is not None}
        if not ids:
            return set()
        return set(self.db.scalars(select(Account.id).where(Account.id.in_(ids),
                                                            has_second_factor_clause(Account.id))))

    def passkey(self, account_id, passkey_id):
        row = self.db.scalar(select(Passkey).where(Passkey.id == passkey_id, Passkey.account_id == account_id))
        return PasskeyShown(row.id, row.name, row.created_at, row.last_used_at) if row else None

    # The authenticator app.

    def _app(self, account_id, lock=False):
        statement = select(AuthenticatorApp).where(AuthenticatorApp.account_id == account_id)
        return self.db.scalar(statement.with_for_update() if lock else statement)

    def start_app(self, account_id):
        app = self._app(account_id, lock=True)
        if app is not None and app.confirmed_at is not None:
            raise FieldErrors("app", "You have an authenticator app already: remove it before setting up another")
        if app is None:
            app = AuthenticatorApp(id=uuid.uuid4(), account_id=account_id)
            self.db.add(app)
        # Sealed for this row alone (its id is the subject): a new secret each time the set-up begins.
        app.sealed_secret = self.sealer.seal(self.apps.new_secret(), app.id)
        app.created_at = self.clock()
        self.db.flush()

    def app_enrolment(self, account_id):
        app = self._app(account_id)
        if app is None or app.confirmed_at is not None:
            return None
        email = self.db.scalar(select(Account.email).where(Account.id == account_id))
        return self.apps.enrolment(self.sealer.open(app.sealed_secret, app.id), email)

    def confirm_app(self, account_id, code):
        app = self._app(account_id, lock=True)
        if app is None or app.confirmed_at is not None:
            raise FieldErrors("code", "Set up the app first: this page has no app waiting to be confirmed")
        if normal_code(code) is None:
            raise FieldErrors("code", "Enter the 6 digits your app shows, like 123 456")
        step = self.apps.verify(self.sealer.open(app.sealed_secret, app.id), code)
        if step is None:
            raise FieldErrors("code", WRONG_CODE)
        app.confirmed_at = app.last_used_at = self.clock()
        app.last_used_step = step
        self._notice("factor_added", account_id, "an authenticator app")
        return self._codes_for_first_factor(account_id)

    def remove_app(self, account_id):
        app = self._app(account_id, lock=True)
        if app is None:
            raise FieldErrors("app", "You have no authenticator app to remove")
        confirmed = app.confirmed_at is not None
        self.db.delete(app)
        self.db.flush()
        if confirmed:
            self._removed(account_id, "an authenticator app")

    # Passkeys.

    def passkey_registration(self, account_id, rp):
        account = self.db.get(Account, account_id)
        rows = self.db.scalars(select(Passkey).where(Passkey.account_id == account_id)).all()
        user_handle = rows[0].user_handle if rows else new_user_handle()
        ceremony = registration_options(rp, user_handle=user_handle, user_name=account.email,
                                        existing=[KnownPasskey(row.credential_id, tuple(row.transports))
                                                  for row in rows])
        return ceremony, user_handle

    def add_passkey(self, account_id, rp, name, response, challenge, user_handle):
        name = (name or "").strip()
        problems = {"name": passkey_name_problem(name)}
        if not response:
            problems["credential"] = ("No passkey was made: this page needs JavaScript for passkeys. An "
                                      "authenticator app works without it")
        problems = {field: message for field, message in problems.items() if message}
        if problems:
            raise FieldErrors(errors=problems)
        if challenge is None:
            raise FieldErrors("credential", "This page was open too long: reload it and add the passkey again")
        try:
            new = verify_registration(rp, response=response, challenge=challenge)
        except PasskeyRefused:
            raise FieldErrors("credential", "The passkey could not be added: reload the page and try again") \
                from None
        passkey = Passkey(account_id=account_id, credential_id=new.credential_id, public_key=new.public_key,
                          sign_count=new.sign_count, transports=list(new.transports), user_handle=user_handle,
                          name=name, created_at=self.clock())
        try:
            with self.db.begin_nested():
                self.db.add(passkey)
        except IntegrityError:
            raise FieldErrors("credential", "This passkey is registered already") from None
        self._notice("factor_added", account_id, f"a passkey named “{name}”")
        return self._codes_for_first_factor(account_id)

    def rename_passkey(self, account_id, passkey_id, name):
        name = (name or "").strip()
        problem = passkey_name_problem(name)
        if problem:
            raise FieldErrors("name", problem)
        row = self._own_passkey(account_id, passkey_id)
        row.name = name

    def remove_passkey(self, account_id, passkey_id):
        row = self._own_passkey(account_id, passkey_id)
        self.db.delete(row)
        self.db.flush()
        self._removed(account_id, f"the passkey named “{row.name}”")

    def _own_passkey(self, account_id, passkey_id):
        row = self.db.scalar(select(Passkey).where(Passkey.id == passkey_id, Passkey.account_id == account_id)
                             .with_for_update())
        if row is None:
            raise KeyError(passkey_id)
        return row

    # Recovery codes.

    def regenerate_recovery_codes(self, account_id):
        if not self.has_second_factor(account_id):
            raise FieldErrors("codes", "Recovery codes come with a second factor: set one up first")
        codes = self._new_codes(account_id)
        self.audit.record("account.recovery_codes_regenerated", account_id=account_id)
        return codes

    def _new_codes(self, account_id):
        codes, hashes = self.codes.new_set()
        self.db.execute(delete(RecoveryCode).where(RecoveryCode.account_id == account_id))
        self.db.add_all(RecoveryCode(account_id=account_id, code_hash=hashed, created_at=self.clock())
                        for hashed in hashes)
        self.db.flush()
        return codes

    def _codes_for_first_factor(self, account_id):
        """Ten new codes when the person has none left unused (their first factor), to show once; else None."""
        left = self.db.scalar(select(func.count()).select_from(RecoveryCode).where(
            RecoveryCode.account_id == account_id, RecoveryCode.used_at.is_(None)))
        return None if left else self._new_codes(account_id)

    # Verifying: the second step of signing in, and re-authentication.

    def verify_code(self, account_id, code):
        """"app" (a code of the app, now accepted once), "recovery_code" (now used: the person is mailed), or
        None."""
        if normal_code(code) is not None:
            app = self._app(account_id, lock=True)
            if app is None or app.confirmed_at is None:
                return None
            step = self.apps.verify(self.sealer.open(app.sealed_secret, app.id), code, app.last_used_step)
            if step is None:
                return None
            app.last_used_step, app.last_used_at = step, self.clock()
            return "app"
        if normal_recovery_code(code) is None or not self.has_second_factor(account_id):
            return None
        rows = self.db.scalars(select(RecoveryCode).where(
            RecoveryCode.account_id == account_id, RecoveryCode.used_at.is_(None))
            .order_by(RecoveryCode.id).with_for_update()).all()
        found = self.codes.match(code, [row.code_hash for row in rows])
        if found is None:
            return None
        rows[found].used_at = self.clock()
        self._mail("recovery_code_used", account_id, left=len(rows) - 1)
        return "recovery_code"

    def second_step_options(self, account_id, rp):
        rows = self.db.scalars(select(Passkey).where(Passkey.account_id == account_id)).all()
        if not rows:
            return None
        return authentication_options(rp, allowed=[KnownPasskey(row.credential_id, tuple(row.transports))
                                                   for row in rows])

    def verify_passkey(self, account_id, rp, response, challenge):
        row = self._claimed(response, challenge)
        if row is None or row.account_id != account_id:
            return False
        return self._verified(row, rp, response, challenge, alone=False)

    def password_free_options(self, rp):
        return authentication_options(rp)

    def passkey_sign_in(self, rp, response, challenge):
        row = self._claimed(response, challenge)
        if row is None or not self._verified(row, rp, response, challenge, alone=True):
            return None
        return row.account_id

    def _claimed(self, response, challenge):
        if not response or challenge is None:
            return None
        try:
            credential_id = credential_id_of(response)
        except PasskeyRefused:
            return None
        return self.db.scalar(select(Passkey).where(Passkey.credential_id == credential_id).with_for_update())

    def _verified(self, row, rp, response, challenge, alone):
        try:
            use = verify_authentication(rp, response=response, challenge=challenge, public_key=row.public_key,
                                        sign_count=row.sign_count, user_verification_required=alone,
                                        user_handle=row.user_handle)
        except PasskeyRefused:
            return False
        row.sign_count, row.last_used_at = use.sign_count, self.clock()
        return True

    # Who must have one.

    def workspace_requires(self, workspace_id):
        return self.db.get(WorkspaceFactorRule, workspace_id) is not None

    def set_workspace_rule(self, workspace_id, account_id, required):
        rule = self.db.get(WorkspaceFactorRule, workspace_id)
        if bool(rule) == bool(required):
            return
        if required and not self.has_second_factor(account_id):
            raise FieldErrors("required", "Set up your own second factor first (Two-factor in the top bar): the "
                                          "rule applies to you too")
        if required:
            self.db.add(WorkspaceFactorRule(workspace_id=workspace_id, required_by=account_id,
                                            required_at=self.clock()))
        else:
            self.db.delete(rule)
        self.db.flush()
        self.audit.record("workspace.second_factor_required" if required else "workspace.second_factor_optional",
                          account_id=account_id, workspace_id=workspace_id)

    # The operator's reset.

    def reset(self, email):
        account = self.db.scalar(select(Account).where(Account.email == normal_email(email)).with_for_update())
        if account is None:
            raise FieldErrors("email", f"No account has the email {normal_email(email)}")
        app_confirmed = self.db.scalar(select(AuthenticatorApp.confirmed_at).where(
            AuthenticatorApp.account_id == account.id)) is not None
        passkeys = self.db.execute(delete(Passkey).where(Passkey.account_id == account.id)).rowcount
        self.db.execute(delete(AuthenticatorApp).where(AuthenticatorApp.account_id == account.id))
        self.db.execute(delete(RecoveryCode).where(RecoveryCode.account_id == account.id))
        self.db.execute(delete(PendingSignIn).where(PendingSignIn.account_id == account.id))
        ended = self.db.execute(update(Session).where(Session.account_id == account.id, Session.ended_at.is_(None))
                                .values(ended_at=self.clock())).rowcount
        removed = passkeys + (1 if app_confirmed else 0)
        self.audit.record("account.factors_reset", account_id=None, target=account.email, factors_removed=removed,
                          sessions_ended=ended)
        self._mail("factors_reset", account.id, removed=removed)
        return {"email": account.email, "factors_removed": removed, "sessions_ended": ended}

    # Notices.

    def _removed(self, account_id, what):
        if not self.has_second_factor(account_id):
            # Recovery codes come with a factor and go with the last one.
            self.db.execute(delete(RecoveryCode).where(RecoveryCode.account_id == account_id))
        self._notice("factor_removed", account_id, what)

    def _notice(self, template, account_id, what):
        self.audit.record("account." + template, account_id=account_id, factor=what)
        self._mail(template, account_id, factor=what)

    def _mail(self, template, account_id, **values):
        email = self.db.scalar(select(Account.email).where(Account.id == account_id))
        self.mail.send(template, email, regarding=REGARDING, two_factor_link=self.mail.link(TWO_FACTOR_PATH),
                       **values)


def factor_service_factory(settings, sealer_of):
    """`sealer_of(registry)`: the sealer of TOTP secrets (the portal passes the events context's, under
    `identity.totp_secret`)."""
    codes = RecoveryCodes(settings.secrets.key_pepper)

    def factory(context, request):
        return FactorService(request.db, sealer_of(request.registry), codes, request.find_service(IMail),
                             request.find_service(IAuditTrail))

    return factory
