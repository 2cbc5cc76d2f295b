"""Emailed account links' rules shared by accounts (a password change) and recovery (a reset, a newer reset link,
an email change): what stops working when the password or the address changes."""

from sqlalchemy import delete, update

from clinicrecords.identity.models import AccountLink, PendingSignIn


def void_reset_links(db, account_id, at):
    """Outstanding reset links of the account stop working (a newer one was sent, the password changed, or the
    address did: a link mailed to the old address must not outlive the change)."""
    db.execute(update(AccountLink).where(
        AccountLink.account_id == account_id, AccountLink.purpose == "reset_password",
        AccountLink.used_at.is_(None), AccountLink.void_at.is_(None)).values(void_at=at))


def password_changed(db, account_id, at):
    """A new password (a reset or a change): every outstanding reset link stops working, and every sign-in
    waiting at the second step ends (whoever got past the old password starts again, and cannot)."""
    void_reset_links(db, account_id, at)
    db.execute(delete(PendingSignIn).where(PendingSignIn.account_id == account_id))
