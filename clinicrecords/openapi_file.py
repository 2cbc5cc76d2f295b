"""`scripts/openapi [PATH]`: assemble the application offline and write its OpenAPI document (default
docs/openapi.json). Here rather than in `clinicrecords.api`: it builds the whole application, every context
included, and the platform packages import no context."""

import sys
from pathlib import Path

from clinicrecords import make_config
from clinicrecords.api.openapi import DOCUMENT_PATH, document_text
from clinicrecords.db import ENGINE

# Enough to assemble the application and read its registrations; nothing connects to a database.
OFFLINE_SETTINGS = {
    "database_url": "postgresql://openapi@127.0.0.1:1/unused",
    "huey.backend": "memory",
    "secrets.cursor": "offline",
    "secrets.key_pepper": "offline",
    "secrets.webhook_keys": "offline:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    # Nothing is mailed offline; a server named, so no mail folder is made under the var dir.
    "mail.smtp_url": "smtp://127.0.0.1:1",
    "mail.sender": "offline@example.org",
}


def write_offline(argv, default_path, text_of):
    """Assemble the application offline and write `text_of(registry)` to the path the command line names (else
    `default_path`); print where."""
    arguments = sys.argv[1:] if argv is None else argv
    target = Path(arguments[0] if arguments else default_path)
    app = make_config(dict(OFFLINE_SETTINGS)).make_wsgi_app()
    try:
        target.write_text(text_of(app.registry), encoding="utf-8")
    finally:
        app.registry[ENGINE].dispose()
    print(target)


def main(argv=None):
    """`scripts/openapi [PATH]`: write the document (default docs/openapi.json)."""
    write_offline(argv, DOCUMENT_PATH, document_text)


if __name__ == "__main__":
    main()
