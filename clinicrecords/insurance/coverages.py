"""Coverages: added unconfirmed and inactive through the API; staff confirm and activate.

Changing a confirmed coverage's payer, member id or subscriber returns it to unconfirmed (and inactive:
staff activate only confirmed coverages).
"""


from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from zope.interface import implementer

from clinicrecords.api.pagination import keyset_page, list_cursors
from clinicrecords.api.problems import Problem, invalid
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.errors import InvalidInput
from clinicrecords.insurance.interfaces import ICoverages
from clinicrecords.insurance.models import Coverage, Payer
from clinicrecords.patients.services import find_patient, visible, visible_for_export

# Changing any of these on a confirmed coverage needs staff to confirm it again.
_IDENTIFYING = ("payer_id", "member_id", "subscriber_relationship", "subscriber_name", "subscriber_birth_date")


class CoverageError(InvalidInput):
    """Bad input for a coverage staff command; nothing was written."""


def _columns(data):
    """Body fields → model columns (subscriber and period are nested in the body)."""
    columns = {name: data[name] for name in ("patient_id", "payer_id", "member_id", "group_number") if name in data}
    if "subscriber" in data:
        subscriber = data["subscriber"]
        columns.update(subscriber_relationship=subscriber["relationship"],
                       subscriber_name=subscriber.get("name"), subscriber_birth_date=subscriber.get("birth_date"))
    if "period" in data:
        period = data["period"] or {}
        columns.update(period_start=period.get("start"), period_end=period.get("end"))
    return columns


def _changes_activation(data, coverage):
    """`coverage_active: true` is always refused, also when the coverage is already active (spec: sending it
    through the API is refused); `false` only when it would deactivate an active coverage."""
    if "coverage_active" not in data:
        return False
    return data["coverage_active"] is True or coverage.coverage_active


@implementer(ICoverages)
class CoverageService:
    def __init__(self, db, cursors):
        self.db = db
        self.cursors = cursors

    def _visible(self):
        """Coverages of patients the API may see: a restricted patient's coverages are hidden."""
        return visible(select(Coverage), Coverage.patient_id)

    def get(self, coverage_id):
        return self.db.scalar(self._visible().where(Coverage.id == coverage_id))

    def list(self, query):
        statement = self._visible()
        if query.get("patient_id"):
            statement = statement.where(Coverage.patient_id == query["patient_id"])
        if query.get("updated_since"):
            statement = statement.where(Coverage.updated_at >= query["updated_since"])
        return keyset_page(self.cursors, self.db, statement, (Coverage.created_at, Coverage.id), query)

    def _enabled_payer(self, payer_id):
        payer = self.db.get(Payer, payer_id)
        if payer is None:
            raise invalid([{"pointer": "/payer_id", "message": "No payer with this id in the clinic's directory."}])
        if not payer.enabled:
            raise Problem("payer_not_enabled", "The clinic has not enabled this payer; GET /payers lists the "
                          "payers it accepts.")
        return payer

    def _exists(self, patient, payer_id, reveal):
        existing = self.db.scalar(select(Coverage.id).where(Coverage.patient_id == patient.id,
                                                            Coverage.payer_id == payer_id))
        if existing is None:
            return None
        detail = "The patient already has a coverage for that payer."
        if reveal and not patient.restricted:
            detail += f" Existing coverage: {existing}."
        return Problem("coverage_exists", detail)

    def _save(self, coverage, patient, reveal):
        try:
            with self.db.begin_nested():
                self.db.add(coverage)
                self.db.flush()
        except IntegrityError:
            # A concurrent request added the same patient and payer between our check and our insert.
            raise self._exists(patient, coverage.payer_id, reveal) or Problem("coverage_exists") from None
        return coverage

    def create(self, data, reveal_existing):
        """`reveal_existing`: the caller may read patients, so coverage_exists may name the existing id."""
        if data.get("coverage_active"):
            raise Problem("activation_requires_staff", "Coverages added through the API start inactive; "
                          "clinic staff activate them after confirming.")
        self._enabled_payer(data["payer_id"])
        # Restricted patients are accepted (the caller learns nothing of their records, see coverage_exists).
        patient = find_patient(self.db, data["patient_id"])
        if patient is None:
            raise invalid([{"pointer": "/patient_id", "message": "No patient with this id in the clinic."}])
        conflict = self._exists(patient, data["payer_id"], reveal_existing)
        if conflict:
            raise conflict
        coverage = Coverage(**_columns(data), confirmation_status="unconfirmed", coverage_active=False)
        return self._save(coverage, patient, reveal_existing)

    def update(self, coverage, data, reveal_existing):
        if _changes_activation(data, coverage):
            raise Problem("activation_requires_staff", "Only clinic staff activate or deactivate a coverage.")
        columns = _columns(data)
        patient = find_patient(self.db, coverage.patient_id)
        if "payer_id" in columns and columns["payer_id"] != coverage.payer_id:
            self._enabled_payer(columns["payer_id"])
            conflict = self._exists(patient, columns["payer_id"], reveal_existing)
            if conflict:
                raise conflict
        changed = any(name in columns and columns[name] != getattr(coverage, name) for name in _IDENTIFYING)
        for name, value in columns.items():
            setattr(coverage, name, value)
        if changed and coverage.confirmation_status == "confirmed":
            coverage.confirmation_status = "unconfirmed"
            coverage.coverage_active = False
        return self._save(coverage, patient, reveal_existing)


def coverage_service_factory(context, request):
    return CoverageService(clinic_scope(context).db, list_cursors(request))


def _get(db, coverage_id):
    coverage = db.get(Coverage, coverage_id)
    if coverage is None:
        raise CoverageError(f"no coverage {coverage_id} in this clinic")
    return coverage


def confirm_coverage(db, coverage_id):
    coverage = _get(db, coverage_id)
    coverage.confirmation_status = "confirmed"
    db.flush()
    return coverage


def activate_coverage(db, coverage_id):
    coverage = _get(db, coverage_id)
    if coverage.confirmation_status != "confirmed":
        raise CoverageError("only a confirmed coverage can be activated: run `coverage confirm` first")
    coverage.coverage_active = True
    db.flush()
    return coverage


def coverage_payer_ids_for_export():
    """The select of the payer ids the coverages a bulk export writes name: Patient/$export writes those payers
    (as Organization) beside the coverages."""
    return visible(select(Coverage.payer_id), Coverage.patient_id)


def payer_rows_for_export(since=None, among=None):
    """The rows of the payers a bulk export writes as Organization, in the order the payer list shows them:
    the enabled ones, as the single reads show them; `among` (a select of ids) narrows them. A payer keeps no
    change time: with `since`, those added at or after it."""
    statement = select(*Payer.__table__.columns).where(Payer.enabled.is_(True))
    if among is not None:
        statement = statement.where(Payer.id.in_(among))
    if since is not None:
        statement = statement.where(Payer.created_at >= since)
    return statement.order_by(Payer.search_name, Payer.id)


def coverage_rows_for_export(since=None):
    """The rows of the coverages a bulk export writes (those of patients the API may see), oldest first."""
    return visible_for_export(select(*Coverage.__table__.columns), Coverage.patient_id, Coverage.updated_at,
                              since).order_by(Coverage.created_at, Coverage.id)
