import pytest
import webtest

from clinicrecords import tasks
from clinicrecords.settings import read


@pytest.fixture
def queued_app(make_app, settings):
    """The application with a real (in-memory, not immediate) queue and no wait: imports stay validating until
    a test runs the queued task."""
    wsgi_app = make_app(**{"huey.immediate": "false", "huey.backend": "memory",
                           "patient_imports.wait_seconds": "0"})
    yield webtest.TestApp(wsgi_app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    tasks.configure(read(settings))
