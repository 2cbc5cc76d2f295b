"""The re-authentication window (decision 0091) as a rule of the identity context, with its own clock: signing
in opens it, it holds 10 minutes, confirming or a sensitive action renews it, a method plugs in by name and a
verifier, and the password verifier is throttled as log-in is. (This package's tests commit: each uses an
account of its own.)"""

import datetime
import types

import pytest
from sqlalchemy import select

from clinicrecords.errors import FieldErrors
from clinicrecords.identity.models import Account, Session
from clinicrecords.identity.passwords import Passwords
from clinicrecords.identity.reauth import REAUTH_WINDOW, PasswordVerifier, Reauthentication
from clinicrecords.identity.sessions import SessionRules, SessionService
from clinicrecords.identity.throttle import LoginThrottle, ThrottleRules
from clinicrecords.settings import PortalSettings, read_section
from tests.portal.helpers import unique_email

START = datetime.datetime(2031, 3, 4, 9, 0, tzinfo=datetime.UTC)


class Clock:
    def __init__(self):
        self.now = START

    def __call__(self):
        return self.now

    def at(self, **delta):
        self.now = START + datetime.timedelta(**delta)


class CodeVerifier:
    """A second method, as an authenticator app's would plug in: available to some accounts only."""

    fields = ("code",)

    def __init__(self, enrolled):
        self.enrolled = enrolled

    def available(self, account_id):
        return account_id in self.enrolled

    def verify(self, account_id, proof, address):
        if proof.get("code") != "123456":
            raise FieldErrors("code", "That code is not right")


@pytest.fixture
def passwords(settings):
    return Passwords.from_settings(read_section(PortalSettings, settings))


@pytest.fixture
def account(world, passwords):
    with world.db() as db:
        account = Account(email=unique_email("window"), password_hash=passwords.hash("the right passphrase 1"))
        db.add(account)
        db.flush()
        return account.id


def _services(db, clock, passwords, enrolled=()):
    sessions = SessionService(db, SessionRules(clock=clock))
    verifiers = {"password": PasswordVerifier(db, passwords, LoginThrottle(db, ThrottleRules(), clock)),
                 "code": CodeVerifier(set(enrolled))}
    return sessions, Reauthentication(db, verifiers, clock)


def _reload(db, sessions, token):
    return sessions.resume(token)


def test_signing_in_opens_ten_minutes_and_confirming_renews_them(world, account, passwords):
    clock = Clock()
    with world.db() as db:
        sessions, reauth = _services(db, clock, passwords)
        token, session = sessions.start(account)
        assert reauth.window == REAUTH_WINDOW == datetime.timedelta(minutes=10)
        clock.at(minutes=9, seconds=59)
        assert reauth.is_fresh(_reload(db, sessions, token))
        assert reauth.fresh_until(session) == START + REAUTH_WINDOW
        clock.at(minutes=10)
        stale = _reload(db, sessions, token)
        assert not reauth.is_fresh(stale) and reauth.fresh_until(stale) is None
        reauth.confirm(stale, "password", {"password": "the right passphrase 1"}, "10.0.0.1")
        clock.at(minutes=19, seconds=59)
        renewed = _reload(db, sessions, token)
        assert reauth.is_fresh(renewed)
        reauth.renew(renewed)  # a sensitive action
        clock.at(minutes=29, seconds=58)
        assert reauth.is_fresh(_reload(db, sessions, token))
        clock.at(minutes=29, seconds=59)
        assert not reauth.is_fresh(_reload(db, sessions, token))


def test_a_session_that_never_proved_it_is_not_fresh(world, account, passwords):
    with world.db() as db:
        _, reauth = _services(db, Clock(), passwords)
        assert not reauth.is_fresh(types.SimpleNamespace(reauthenticated_at=None, account_id=account))


def test_a_wrong_proof_renews_nothing_and_an_ended_session_is_never_renewed(world, account, passwords):
    clock = Clock()
    with world.db() as db:
        sessions, reauth = _services(db, clock, passwords)
        token, session = sessions.start(account)
        clock.at(minutes=11)
        with pytest.raises(FieldErrors) as refused:
            reauth.confirm(session, "password", {"password": "not the passphrase"}, "10.0.0.1")
        assert refused.value.errors == {"password": "Your password is not right"}
        assert not reauth.is_fresh(_reload(db, sessions, token))
        sessions.end(token)
        reauth.renew(session)
        assert db.scalar(select(Session.reauthenticated_at).where(Session.id == session.session_id)) == START


def test_methods_plug_in_by_name_and_only_where_the_account_can_use_them(world, account, passwords):
    clock = Clock()
    with world.db() as db:
        sessions, reauth = _services(db, clock, passwords)
        _, session = sessions.start(account)
        assert reauth.methods(account) == ["password"]
        with pytest.raises(FieldErrors) as refused:
            reauth.confirm(session, "code", {"code": "123456"}, "10.0.0.1")
        assert refused.value.errors == {"method": "Choose a way to confirm it's you"}
        with pytest.raises(FieldErrors):
            reauth.confirm(session, "carrier-pigeon", {}, "10.0.0.1")
        _, enrolled = _services(db, clock, passwords, enrolled={account})
        assert enrolled.methods(account) == ["password", "code"]
        with pytest.raises(FieldErrors) as wrong:
            enrolled.confirm(session, "code", {"code": "000000"}, "10.0.0.1")
        assert wrong.value.errors == {"code": "That code is not right"}
        clock.at(minutes=20)
        enrolled.confirm(session, "code", {"code": "123456"}, "10.0.0.1")
        assert db.scalar(select(Session.reauthenticated_at).where(Session.id == session.session_id)) == clock.now


def test_password_guesses_are_throttled_with_log_in(world, account, passwords):
    clock = Clock()
    with world.db() as db:
        sessions, reauth = _services(db, clock, passwords)
        _, session = sessions.start(account)
        for _ in range(ThrottleRules().per_account_and_address):
            with pytest.raises(FieldErrors):
                reauth.confirm(session, "password", {"password": "a wrong guess"}, "10.0.0.9")
        with pytest.raises(FieldErrors) as throttled:
            reauth.confirm(session, "password", {"password": "the right passphrase 1"}, "10.0.0.9")
        assert throttled.value.errors["password"] == "Too many wrong passwords. Try again in 15 minutes"
        reauth.confirm(session, "password", {"password": "the right passphrase 1"}, "10.0.0.10")  # another address
