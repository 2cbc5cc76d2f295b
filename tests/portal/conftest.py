import dataclasses
import datetime

import pytest

from tests.events.support import Receiver


@pytest.fixture
def receiver():
    """A webhook receiver on 127.0.0.1 answering 200 with a small JSON body (the webhook pages show it)."""
    with Receiver(default=200, body=b'{"received": true}') as running:
        yield running


class MovableClock:
    """The real time, moved forward by the test: `clock.move(minutes=11)`."""

    def __init__(self):
        self.offset = datetime.timedelta()

    def __call__(self):
        return datetime.datetime.now(datetime.UTC) + self.offset

    def move(self, **delta):
        self.offset += datetime.timedelta(**delta)


@pytest.fixture
def session_clock(app):
    """The sessions' clock of the suite's application (idle limits, the re-authentication window), moved by the
    test through the real stack; put back when it ends."""
    from clinicrecords.identity.services import SESSION_RULES

    rules = app.registry[SESSION_RULES]
    clock = MovableClock()
    app.registry[SESSION_RULES] = dataclasses.replace(rules, clock=clock)
    yield clock
    app.registry[SESSION_RULES] = rules
