import pytest
import webtest

from clinicrecords import tasks
from clinicrecords.settings import read


@pytest.fixture
def queued_app(make_app, settings):
    """The application with a real (in-memory, not immediate) queue: exports stay queued until a test runs the
    queued task (`run_queued`)."""
    wsgi_app = make_app(**{"huey.immediate": "false", "huey.backend": "memory"})
    yield webtest.TestApp(wsgi_app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    tasks.configure(read(settings))


def run_queued():
    """Run every task the queue holds, as a worker would."""
    while (message := tasks.huey.dequeue()) is not None:
        tasks.huey.execute(message)
