from pathlib import Path

import jinja2
import pytest

from clinicrecords.mail import messages

TEMPLATES = Path(__file__).parent / "templates"


@pytest.fixture
def probe(monkeypatch):
    """The `probe` template (tests/mail/templates) beside the service's own: its subject is `title`, its body
    `line` and an optional `link`."""
    loader = jinja2.ChoiceLoader([messages.templates.loader, jinja2.FileSystemLoader(TEMPLATES)])
    monkeypatch.setattr(messages.templates, "loader", loader)
    return "probe"
