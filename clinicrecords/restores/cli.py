"""`database restored --to T --security-events FILE`: the procedure after the whole database was restored to T
(docs/operations.md)."""

import sys

from clinicrecords.cli import command_group
from clinicrecords.cli.arguments import datetime_arg, positive_int_arg
from clinicrecords.restores.services import SEQ_GAP, finish_whole_restore, read_security_events


def register(commands):
    database = command_group(commands, "database", help="the whole database")
    restored = database.add_parser(
        "restored", help="after a restore of the whole database to T: every clinic's change feed moves past any seq "
                         "handed out after T (with a clinic.restored event), and the security events recorded "
                         "after T are applied again")
    restored.add_argument("--to", dest="restored_to", required=True, type=datetime_arg, metavar="T",
                          help="the point in time the database was restored to (ISO 8601; UTC without a zone)")
    restored.add_argument("--security-events", required=True, metavar="FILE",
                          help="the security-events file (security.events_path) or the log lines of "
                               "clinicrecords.security_events, kept off the restored database's disk")
    restored.add_argument("--seq-gap", type=positive_int_arg, default=SEQ_GAP,
                          help=f"how far each clinic's feed moves past its last seq (default {SEQ_GAP})")
    restored.set_defaults(handler=database_restored)


def _progress(done, total):
    if sys.stderr.isatty() and total >= 20:
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\rrestarting clinics' feeds [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def database_restored(request, args):
    events = read_security_events(args.security_events, args.restored_to)
    done = finish_whole_restore(request.db, args.restored_to, events, args.seq_gap, progress=_progress)
    return {"restored_to": args.restored_to.isoformat(), "seq_gap": args.seq_gap, "clinics": done["clinics"],
            "security_events": {"after_t": len(events), "applied": done["applied"], "absent": done["absent"]}}
