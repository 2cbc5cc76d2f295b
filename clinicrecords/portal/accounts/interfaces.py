from zope.interface import Interface


class IAccountService(Interface):
    """Portal accounts: sign up, log in (throttled), change password. Refusals are FormError by field."""

    def by_email(email):
        """The account with this email (normalized), or None."""

    def get(account_id):
        """The account, or None."""

    def sign_up(email, password):
        """A new account; FormError when the email is taken or the password too weak."""

    def log_in(email, password, address):
        """The account, or FormError with the same words for an unknown email and a wrong password (throttled
        per account and address)."""

    def change_password(account_id, current, new):
        """Set a new password once the current one is given; FormError by field."""
