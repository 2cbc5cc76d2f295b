"""Creating clinics: the control row and the clinic's schema, built at head in the same transaction."""

import uuid
import zoneinfo
from decimal import Decimal

from sqlalchemy import select, update
from sqlalchemy.schema import DropSchema

from clinicrecords.clinics.models import CLINIC_KINDS, Clinic
from clinicrecords.clinics.plans import FEATURES
from clinicrecords.clinics.plans import require_features as require_features  # other contexts gate on a plan
from clinicrecords.clock import now
from clinicrecords.db.migrations import create_tenant_schema
from clinicrecords.db.tenancy import bind_to_clinic, schema_name
from clinicrecords.errors import InvalidInput
from clinicrecords.mail.services import NAME_REFUSED, holds_link_or_key


class ClinicError(InvalidInput):
    """Bad input for a clinic; nothing was written."""


def validate_currency(code):
    if not (isinstance(code, str) and len(code) == 3 and code.isalpha() and code.isupper()):
        raise ClinicError("currency must be a three-letter ISO 4217 code such as USD")
    return code


def validate_coordinates(lat, lng):
    if (lat is None) != (lng is None):
        raise ClinicError("--lat and --lng go together")
    if lat is not None and not (-90 <= lat <= 90 and -180 <= lng <= 180):
        raise ClinicError("latitude must be within -90..90 and longitude within -180..180")


def create_clinic(db, name, kind="clinic", currency="USD", lat=None, lng=None, clinic_id=None,
                  sandbox_of_workspace_id=None):
    name = (name or "").strip()
    if not name or len(name) > 200:
        raise ClinicError("name must be 1 to 200 characters")
    if holds_link_or_key(name):
        raise ClinicError(f"a clinic's name {NAME_REFUSED}")
    if kind not in CLINIC_KINDS:
        raise ClinicError(f"kind must be one of {', '.join(CLINIC_KINDS)}")
    validate_currency(currency)
    validate_coordinates(lat, lng)
    clinic = Clinic(
        id=clinic_id or uuid.uuid4(), name=name, kind=kind, currency=currency,
        lat=Decimal(str(lat)) if lat is not None else None, lng=Decimal(str(lng)) if lng is not None else None,
        sandbox_of_workspace_id=sandbox_of_workspace_id,
    )
    db.add(clinic)
    db.flush()
    clinic.schema_revision = create_tenant_schema(db.connection(), clinic.id)
    return clinic


def list_clinics(db, include_sandboxes=False):
    """Clinics oldest first; workspaces' sandbox clinics only when asked (there is one per workspace), and
    never a closed workspace's, whose schema is gone: callers walk the schemas."""
    query = select(Clinic).where(Clinic.schema_dropped_at.is_(None)).order_by(Clinic.created_at, Clinic.id)
    if not include_sandboxes:
        query = query.where(Clinic.sandbox_of_workspace_id.is_(None))
    return db.scalars(query).all()


def validate_timezone(name):
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ClinicError(f"not an IANA timezone name such as Europe/Berlin: {name!r}") from None
    if len(name) > 64:
        raise ClinicError("timezone names are at most 64 characters")
    return name


def set_clinic(db, clinic_id, timezone=None, **features):
    """Change a clinic's timezone and plan features (None: unchanged)."""
    clinic = db.get(Clinic, clinic_id)
    if clinic is None:
        raise ClinicError(f"no clinic {clinic_id}")
    if timezone is not None:
        clinic.timezone = validate_timezone(timezone)
    for name, value in features.items():
        if name not in FEATURES:
            raise ClinicError(f"unknown plan feature {name}")
        if value is not None:
            setattr(clinic, name, value)
    db.flush()
    return clinic


def find_clinic(db, clinic_id):
    """The clinic's control row, or None."""
    return db.get(Clinic, clinic_id)


def drop_sandbox_schema(db, clinic_id):
    """A closed workspace's sandbox: its schema is dropped (every record the sandbox held), its row kept and
    marked, so nothing opens or migrates it again. A real clinic is never dropped; a second call does nothing."""
    clinic = db.get(Clinic, clinic_id, with_for_update=True)
    if clinic is None or not clinic.is_sandbox or clinic.schema_dropped_at is not None:
        return clinic
    db.flush()
    db.connection().execute(DropSchema(schema_name(clinic.id), cascade=True, if_exists=True))
    clinic.schema_dropped_at = now()
    clinic.schema_revision = None
    return clinic


def with_clinic(statement, clinic_id, *, outer=False, real_only=False):
    """`statement` also reading the clinic whose id is the expression `clinic_id` (a bind parameter or a
    column), as the entity `Clinic` of each row: how access reads a key's reach of a clinic in the same
    statement as the key without knowing this context's models. `outer`: a row without such a clinic still
    comes (its `Clinic` None); `real_only`: sandbox clinics are left out."""
    on = Clinic.id == clinic_id
    if real_only:
        on = on & Clinic.sandbox_of_workspace_id.is_(None)
    statement = statement.add_columns(Clinic)
    return statement.outerjoin(Clinic, on) if outer else statement.join(Clinic, on)


def clinic_names(db, clinic_ids):
    """{clinic id: name} of those of `clinic_ids` that exist."""
    if not clinic_ids:
        return {}
    return dict(db.execute(select(Clinic.id, Clinic.name).where(Clinic.id.in_(clinic_ids))).all())


def clinic_name_rows(clinic_ids):
    """(id, name) of those of `clinic_ids` that exist, as a statement another context composes into its own
    single statement (access.services.display_names)."""
    return select(Clinic.id, Clinic.name).where(Clinic.id.in_(clinic_ids))


def sandbox_workspace_of(clinic_id):
    """The workspace whose sandbox the clinic is (NULL for a real clinic), as a scalar subquery for another
    context's single statement."""
    return select(Clinic.sandbox_of_workspace_id).where(Clinic.id == clinic_id).scalar_subquery()


def sandbox_clinics_of(workspace_id):
    """The statement selecting the ids of the workspace's sandbox clinics."""
    return select(Clinic.id).where(Clinic.sandbox_of_workspace_id == workspace_id)


def open_clinic(db, clinic_id):
    """Point `db` at the clinic's schema (once per transaction) and return the clinic, or None."""
    clinic = db.get(Clinic, clinic_id)
    if clinic is None or clinic.schema_dropped_at is not None:
        return None
    bind_to_clinic(db, clinic.id)
    return clinic


def open_clinic_or_fail(db, clinic_id):
    """`open_clinic` for operator commands: an unknown clinic is bad input."""
    clinic = open_clinic(db, clinic_id)
    if clinic is None:
        raise InvalidInput(f"no clinic {clinic_id}")
    return clinic


class ClinicSchemas:
    """The clinics' schemas as `clinicrecords.db.migrations` walks them (its TenantCatalog)."""

    def behind(self, connection, revision):
        rows = connection.execute(
            select(Clinic.id).where((Clinic.schema_revision != revision) | Clinic.schema_revision.is_(None),
                                    Clinic.schema_dropped_at.is_(None))
            .order_by(Clinic.created_at)
        )
        return [row.id for row in rows]

    def record(self, connection, clinic_id, revision):
        connection.execute(update(Clinic).where(Clinic.id == clinic_id).values(schema_revision=revision))


CLINIC_SCHEMAS = ClinicSchemas()


# For access's entry, which builds the request's clinic scope (clinicrecords.access.entry).
from clinicrecords.clinics.scope import ClinicScope as ClinicScope  # noqa: E402
