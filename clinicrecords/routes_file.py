"""`scripts/routes [PATH]`: assemble the application offline and write its route table as markdown (default
docs/routes.md), the table `clinicrecords-admin CONFIG routes` prints. Here rather than in `clinicrecords.api`:
it builds the whole application, every context included."""

import sys
from pathlib import Path

from clinicrecords import make_config
from clinicrecords.api.route_table import DOCUMENT_PATH, markdown
from clinicrecords.db import ENGINE
from clinicrecords.openapi_file import OFFLINE_SETTINGS


def main(argv=None):
    arguments = sys.argv[1:] if argv is None else argv
    target = Path(arguments[0] if arguments else DOCUMENT_PATH)
    app = make_config(dict(OFFLINE_SETTINGS)).make_wsgi_app()
    try:
        target.write_text(markdown(app.registry), encoding="utf-8")
    finally:
        app.registry[ENGINE].dispose()
    print(target)


if __name__ == "__main__":
    main()
