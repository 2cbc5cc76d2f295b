import pytest

from tests.events.support import Receiver


@pytest.fixture
def receiver():
    """A webhook receiver on 127.0.0.1 answering 200 with a small JSON body (the webhook pages show it)."""
    with Receiver(default=200, body=b'{"received": true}') as running:
        yield running
