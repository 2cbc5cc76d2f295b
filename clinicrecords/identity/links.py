"""Emailed account links' rules shared by accounts (a password change) and recovery (a newer reset link)."""

from sqlalchemy import update

from clinicrecords.identity.models import AccountLink


def void_reset_links(db, account_id, at):
    """Outstanding reset links of the account stop working (a newer one was sent, or the password changed)."""
    db.execute(update(AccountLink).where(
        AccountLink.account_id == account_id, AccountLink.purpose == "reset_password",
        AccountLink.used_at.is_(None), AccountLink.void_at.is_(None)).values(void_at=at))
