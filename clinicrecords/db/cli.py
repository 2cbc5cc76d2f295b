import os
import sys

from clinicrecords.cli import not_transactional
from clinicrecords.cli.arguments import positive_int_arg
from clinicrecords.db.direct import migration_engine, migration_lock
from clinicrecords.db.migrations import migrate_all


def register(commands):
    parser = commands.add_parser("migrate", help="bring the control schema and every clinic schema to head")
    parser.add_argument("--workers", type=positive_int_arg, default=min(4, os.cpu_count() or 2),
                        help="clinic schemas migrated at once (processes)")
    parser.set_defaults(handler=migrate)


def _progress_bar(done, total):
    if sys.stderr.isatty() and total >= 20:
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\rmigrating clinics [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


@not_transactional
def migrate(request, args):
    """On a direct connection (clinicrecords.db.direct), under a lock no second run can take meanwhile."""
    settings = request.registry.settings
    with migration_engine(settings) as engine, migration_lock(engine):
        moved = migrate_all(engine, workers=args.workers, progress=_progress_bar, settings=settings)
    return {"schemas_migrated": moved}
