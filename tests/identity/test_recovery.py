"""The recovery service's mail leaves only with its transaction: a sign-up or reset request that rolls back
mails nothing and leaves no account or link."""

import time

from sqlalchemy import func, select

from clinicrecords.identity.models import Account, AccountLink
from clinicrecords.identity.services import IRecoveryService
from clinicrecords.tasks import prepared_request
from tests.portal.helpers import PASSWORD, signed_up, unique_email


def _count(engine, model, *where):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(model).where(*where))


def test_a_rolled_back_sign_up_or_reset_request_mails_nothing(app, registry, engine, mail):
    _, known = signed_up(app)
    mail.wait_for(1)
    mail.clear()
    new = unique_email("rolled-back")
    with prepared_request(registry) as request:
        request.tm.begin()
        recovery = request.find_service(IRecoveryService)
        recovery.sign_up(new, PASSWORD, "127.0.0.1")
        recovery.request_reset(known, "127.0.0.1")
        request.db.flush()
        request.tm.abort()
    time.sleep(1)  # what a worker would have sent by now
    assert mail.messages() == []
    assert _count(engine, Account, Account.email == new) == 0
    assert _count(engine, AccountLink, AccountLink.email == new) == 0
    assert _count(engine, AccountLink, AccountLink.email == known, AccountLink.purpose == "reset_password") == 0
