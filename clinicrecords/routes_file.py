"""`scripts/routes [PATH]`: assemble the application offline and write its route table as markdown (default
docs/routes.md), the table `clinicrecords-admin CONFIG routes` prints. Here rather than in `clinicrecords.api`:
it builds the whole application, every context included."""

from clinicrecords.api.route_table import DOCUMENT_PATH, markdown
from clinicrecords.openapi_file import write_offline


def main(argv=None):
    write_offline(argv, DOCUMENT_PATH, markdown)


if __name__ == "__main__":
    main()
