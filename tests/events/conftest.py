import pytest

from tests.events.support import Receiver


@pytest.fixture
def receiver():
    with Receiver() as running:
        yield running


@pytest.fixture
def make_receiver():
    started = []

    def make(**kwargs):
        running = Receiver(**kwargs).__enter__()
        started.append(running)
        return running

    yield make
    for running in started:
        running.__exit__(None, None, None)
