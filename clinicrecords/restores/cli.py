"""`database restored --to T --security-events FILE [--audit-from URL]`: the procedure after the whole database
was restored to T; `clinic restore --clinic ID --from URL`: one clinic's records brought back from such a copy
(docs/operations.md)."""

import contextlib

from clinicrecords.cli import command_group, progress_bar
from clinicrecords.cli.arguments import datetime_arg, positive_int_arg, uuid_arg
from clinicrecords.restores.audit_trail import copy_audit_trail, old_primary
from clinicrecords.restores.clinic_restore import restore_clinic
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
    restored.add_argument("--audit-from", dest="audit_url", metavar="URL",
                          help="the old primary's database, started read-only on another port: "
                               "postgresql://ROLE@HOST:PORT/DATABASE; every clinic's audit entries written "
                               "after T that the restored database lacks are copied into it (each once)")
    restored.set_defaults(handler=database_restored)

    clinic = command_group(commands, "clinic", help="clinics (tenants)")
    restore = clinic.add_parser(
        "restore", help="bring one clinic's records back from a copy of the database recovered to an earlier time, "
                        "while the service runs (the other clinics keep what they wrote since)")
    restore.add_argument("--clinic", dest="clinic_id", required=True, type=uuid_arg, metavar="ID")
    restore.add_argument("--from", dest="source_url", required=True, metavar="URL",
                         help="the recovered copy: postgresql://ROLE@HOST:PORT/DATABASE (never production itself)")
    restore.set_defaults(handler=clinic_restore)


def database_restored(request, args):
    """In the command's one transaction. The old primary (`--audit-from`) is checked before anything changes."""
    events = read_security_events(args.security_events, args.restored_to)
    with (old_primary(request.db, args.audit_url) if args.audit_url else contextlib.nullcontext()) as source:
        done = finish_whole_restore(request.db, args.restored_to, events, args.seq_gap,
                                    progress=progress_bar("restarting clinics' feeds"))
        audit = source and copy_audit_trail(request.db, source, args.restored_to,
                                            progress=progress_bar("copying the audit trail after T"))
    return {"restored_to": args.restored_to.isoformat(), "seq_gap": args.seq_gap, "clinics": done["clinics"],
            "security_events": {"after_t": len(events), "applied": done["applied"], "absent": done["absent"]},
            "audit_entries_copied": audit and audit["copied"], "audit_clinics_skipped": audit and audit["skipped"]}


def clinic_restore(request, args):
    """In the command's one transaction: committed whole, or (a crash, a refusal) not at all."""
    return restore_clinic(request.db, args.clinic_id, args.source_url,
                          progress=progress_bar(f"restoring clinic {args.clinic_id}", smallest=1))
