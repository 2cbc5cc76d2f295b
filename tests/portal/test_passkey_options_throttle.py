"""The log-in page's passkey ceremony is asked for without signing in, and each asking writes a pending sign-in
holding its challenge. A client address holds at most ten unanswered ones at once (the eleventh is a 429 saying
how long to wait), an unanswered challenge expires with the ceremony's time-out (five minutes) and is deleted
as new ones are asked for. (Each challenge works once: tests/portal/test_second_factor.py.)"""

import datetime
import json

from sqlalchemy import func, select, update

from clinicrecords.identity.models import PendingSignIn
from tests.portal.helpers import browser


def _rows(engine, address=None):
    statement = select(func.count()).select_from(PendingSignIn).where(PendingSignIn.account_id.is_(None))
    if address is not None:
        statement = statement.where(PendingSignIn.address == address)
    with engine.connect() as connection:
        return connection.scalar(statement)


def test_one_address_holds_at_most_ten_unanswered_ceremonies(app, engine):
    visitor = browser(app, "192.0.2.10")
    for _ in range(10):
        assert visitor.get("/portal/login/passkey/options").content_type == "application/json"
    refused = visitor.get("/portal/login/passkey/options", status=429)
    assert json.loads(refused.text)["error"].startswith("Too many attempts to log in. Try again in 5 minutes")
    assert _rows(engine, "192.0.2.10") == 10
    browser(app, "192.0.2.11").get("/portal/login/passkey/options", status=200)  # another address is not held


def test_an_unanswered_challenge_expires_within_minutes_and_goes_as_new_ones_are_asked_for(app, engine):
    visitor = browser(app, "192.0.2.20")
    visitor.get("/portal/login/passkey/options")
    with engine.connect() as connection:
        row = connection.execute(select(PendingSignIn).where(PendingSignIn.address == "192.0.2.20")).one()
    assert row.expires_at - row.created_at == datetime.timedelta(minutes=5)
    with engine.begin() as connection:  # the five minutes pass
        connection.execute(update(PendingSignIn).where(PendingSignIn.id == row.id)
                           .values(expires_at=func.now() - datetime.timedelta(seconds=1)))
    browser(app, "192.0.2.21").get("/portal/login/passkey/options")
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(PendingSignIn)
                                 .where(PendingSignIn.id == row.id)) == 0
    assert _rows(engine) == 1
