from pathlib import Path

import jinja2
import pytest
from sqlalchemy import delete

from clinicrecords.mail import messages
from clinicrecords.mail.models import OutgoingMail

TEMPLATES = Path(__file__).parent / "templates"


@pytest.fixture
def probe(monkeypatch):
    """The `probe` template (tests/mail/templates) beside the service's own: its subject is `title`, its body
    `line` and an optional `link`."""
    loader = jinja2.ChoiceLoader([messages.templates.loader, jinja2.FileSystemLoader(TEMPLATES)])
    monkeypatch.setattr(messages.templates, "loader", loader)
    return "probe"


@pytest.fixture(autouse=True)
def empty_outbox(request):
    """Each mail test reads the outbox as its own: rows that tests committing for real left behind (their
    sign-ups mail a verification link) are removed first (inside the test's transaction when it has one).
    Tests that start a worker process need it too: the worker's sweep would send those rows beside theirs."""
    if "app" in request.fixturenames or "engine" in request.fixturenames:
        with request.getfixturevalue("engine").begin() as connection:
            connection.execute(delete(OutgoingMail))
