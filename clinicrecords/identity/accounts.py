"""Accounts: sign up, log in with throttling, password change, the account-kind rule. The portal's forms call
these with typed values; each method either does all of its work or raises `FieldErrors` naming the field and
changes nothing."""

from sqlalchemy import func, select
from zope.interface import implementer

from clinicrecords.clock import now
from clinicrecords.errors import FieldErrors
from clinicrecords.identity.interfaces import IAccountService
from clinicrecords.identity.models import Account, ClinicStaff, WorkspaceMember
from clinicrecords.identity.passwords import Passwords, password_problem
from clinicrecords.identity.links import password_changed
from clinicrecords.identity.notices import send_password_changed
from clinicrecords.identity.throttle import LoginThrottle, ThrottleRules, throttled_proof, whole_minutes
from clinicrecords.mail.interfaces import IMail
from clinicrecords.mail.services import address_problem

# The longest address an account can have (RFC 5321, the column's length).
MAX_EMAIL = 254
EMAIL_FORMAT = "Enter an email address in the right format, like name@example.com"
LOGIN_REFUSED = "Email or password is not right"


def throttled(wait):
    minutes = whole_minutes(wait)
    return f"Too many attempts to log in. Try again in {minutes} minute{'s' if minutes != 1 else ''}"


def normal_email(text):
    return (text or "").strip().lower()


def email_problem(email):
    """Why `email` cannot be an account's address, or None. The mail service's own parser judges it
    (`address_problem`), so every address a form accepts is one the mailer sends to, exactly as typed: no list,
    no comment, no name, nothing it would refuse or rewrite. The emailed link proves the address."""
    if not email:
        return "Enter your email address"
    if len(email) > MAX_EMAIL or address_problem(email):
        return EMAIL_FORMAT
    return None


@implementer(IAccountService)
class AccountService:
    def __init__(self, db, passwords, throttle_rules=ThrottleRules(), clock=now, mail=None):
        self.db = db
        self.passwords = passwords
        self.mail = mail
        self.clock = clock
        self.throttle = LoginThrottle(db, throttle_rules, clock)

    def by_email(self, email):
        return self.db.scalar(select(Account).where(Account.email == normal_email(email)))

    def get(self, account_id):
        return self.db.get(Account, account_id)

    def emails(self, account_ids):
        ids = {account_id for account_id in account_ids if account_id is not None}
        if not ids:
            return {}
        return dict(self.db.execute(select(Account.id, Account.email).where(Account.id.in_(ids))).all())

    def kind(self, account_id):
        if self.db.scalar(select(WorkspaceMember.account_id).where(WorkspaceMember.account_id == account_id)
                          .limit(1)) is not None:
            return "developer"
        if self.db.scalar(select(ClinicStaff.account_id).where(ClinicStaff.account_id == account_id)
                          .limit(1)) is not None:
            return "staff"
        return None

    def sign_up(self, email, password, verified=False):
        email = normal_email(email)
        problems = {"email": email_problem(email), "password": password_problem(password, email)}
        if not problems["email"] and self.db.scalar(
                select(func.count()).select_from(Account).where(Account.email == email)):
            problems["email"] = "An account with this email already exists: log in instead"
        problems = {field: message for field, message in problems.items() if message}
        if problems:
            raise FieldErrors(errors=problems)
        account = Account(email=email, password_hash=self.passwords.hash(password),
                          email_verified_at=self.clock() if verified else None)
        self.db.add(account)
        self.db.flush()
        return account

    def log_in(self, email, password, address):
        """The account, or FieldErrors with the same words for an unknown email and a wrong password."""
        email = normal_email(email)
        if not email or not password:
            raise FieldErrors("email", LOGIN_REFUSED)
        wait = self.throttle.wait(email, address)
        if wait is not None:
            raise FieldErrors("email", throttled(wait))
        if len(email) > MAX_EMAIL:
            # No account has it; counted as a failure all the same (what the column holds of it).
            self.throttle.fail(email[:MAX_EMAIL], address)
            raise FieldErrors("email", EMAIL_FORMAT)
        account = self.by_email(email)
        if not self.passwords.verify(account.password_hash if account else None, password):
            self.throttle.fail(email, address)
            raise FieldErrors("email", LOGIN_REFUSED)
        self.throttle.succeed(email, address)
        if self.passwords.needs_rehash(account.password_hash):
            account.password_hash = self.passwords.hash(password)
        return account

    def change_password(self, account_id, current, new, address):
        account = self.get(account_id)
        throttled_proof(self.throttle, account.email, address, "current_password", "passwords",
                        "Your current password is not right",
                        lambda: self.passwords.verify(account.password_hash, current or ""))
        problem = password_problem(new, account.email)
        if problem:
            raise FieldErrors("new_password", problem)
        if self.passwords.verify(account.password_hash, new):
            raise FieldErrors("new_password", "Choose a password different from your current one")
        account.password_hash = self.passwords.hash(new)
        account.password_changed_at = self.clock()
        password_changed(self.db, account.id, self.clock())
        send_password_changed(self.mail, account.email, how="on your account's password page",
                              signed_out="Every other browser that was signed in has been signed out.")
        return account


def account_service_factory(settings):
    rules = ThrottleRules.from_settings(settings.portal)
    passwords = Passwords.from_settings(settings.portal)

    def factory(context, request):
        return AccountService(request.db, passwords, rules, mail=request.find_service(IMail))

    return factory
