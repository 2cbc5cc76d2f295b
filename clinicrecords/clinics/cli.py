import os

from clinicrecords.api.render import iso
from clinicrecords.cli import command_group, not_transactional, progress_bar
from clinicrecords.cli.arguments import float_arg, positive_int_arg, uuid_arg
from clinicrecords.clinics.models import CLINIC_KINDS
from clinicrecords.clinics.plans import FEATURES, plan_features
from clinicrecords.clinics.services import CLINIC_SCHEMAS, create_clinic, list_clinics, set_clinic
from clinicrecords.db.direct import migration_engine, migration_lock
from clinicrecords.db.migrations import migrate_all
from clinicrecords.settings import app_settings


def register(commands):
    # The clinics own the list of clinic schemas, so the command that brings them all to head lives here.
    parser = commands.add_parser("migrate", help="bring the control schema and every clinic schema to head")
    parser.add_argument("--workers", type=positive_int_arg, default=min(4, os.cpu_count() or 2),
                        help="clinic schemas migrated at once (processes)")
    parser.set_defaults(handler=migrate)

    clinic = command_group(commands, "clinic", help="clinics (tenants)")
    create = clinic.add_parser("create", help="create a clinic and its schema")
    create.add_argument("--name", required=True)
    create.add_argument("--kind", choices=CLINIC_KINDS, default="clinic")
    create.add_argument("--currency", default="USD")
    create.add_argument("--lat", type=float_arg)
    create.add_argument("--lng", type=float_arg)
    create.set_defaults(handler=clinic_create)

    change = clinic.add_parser("set", help="change a clinic's plan features or timezone")
    change.add_argument("clinic_id", type=uuid_arg, metavar="CLINIC_ID")
    for name in FEATURES:
        flag = name.replace("_", "-")
        group = change.add_mutually_exclusive_group()
        group.add_argument(f"--{flag}", dest=name, action="store_const", const=True, help=f"include {FEATURES[name]}")
        group.add_argument(f"--no-{flag}", dest=name, action="store_const", const=False)
    change.add_argument("--timezone", help="IANA name, e.g. Europe/Berlin: clinicians' working hours are in it")
    change.set_defaults(handler=clinic_set)

    listing = clinic.add_parser("list", help="every clinic, oldest first")
    listing.add_argument("--include-sandboxes", action="store_true", help="workspaces' sandbox clinics too")
    listing.set_defaults(handler=clinic_list)


def clinic_create(request, args):
    clinic = create_clinic(request.db, args.name, kind=args.kind, currency=args.currency, lat=args.lat,
                           lng=args.lng)
    return {"clinic_id": str(clinic.id)}


def clinic_set(request, args):
    clinic = set_clinic(request.db, args.clinic_id, timezone=args.timezone,
                        **{name: getattr(args, name) for name in FEATURES})
    return {"clinic_id": str(clinic.id), **plan_features(clinic), "timezone": clinic.timezone}


def clinic_list(request, args):
    return {"clinics": [_clinic_json(clinic) for clinic in list_clinics(request.db, args.include_sandboxes)]}


def _clinic_json(clinic):
    return {"clinic_id": str(clinic.id), "name": clinic.name, "kind": clinic.kind, "currency": clinic.currency,
            "sandbox_of_workspace_id": str(clinic.sandbox_of_workspace_id) if clinic.is_sandbox else None,
            "timezone": clinic.timezone, **plan_features(clinic), "created_at": iso(clinic.created_at)}


@not_transactional
def migrate(request, args):
    """On a direct connection (clinicrecords.db.direct), under a lock no second run can take meanwhile."""
    settings = app_settings(request.registry)
    with migration_engine(settings) as engine, migration_lock(engine):
        moved = migrate_all(engine, CLINIC_SCHEMAS, workers=args.workers,
                            progress=progress_bar("migrating clinics"), settings=settings)
    return {"schemas_migrated": moved}
