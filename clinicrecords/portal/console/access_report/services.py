"""Who read what (decision 0033): for one patient, every API request in the clinic's audit trail that
touched the patient or one of the patient's records — which key, which organization, when, which of the
patient's records. The access report a clinic owes a patient who asks. Only the patient's own record ids are
shown: an entry that also named other patients' records does not reveal them."""

import uuid
from dataclasses import dataclass

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.audit.services import entries_naming
from clinicrecords.clinics.services import open_clinic
from clinicrecords.csv_export import csv_text
from clinicrecords.db.meta import TenantBase
from clinicrecords.patients import services as patients
from clinicrecords.portal.console.access_report.interfaces import IAccessReport
from clinicrecords.portal.web.forms import FormError

MAX_ENTRIES = 5000
CSV_COLUMNS = ("at", "organization", "key", "method", "route", "status", "records", "request_id")


@dataclass(frozen=True)
class Access:
    at: object
    organization: str
    key: str
    method: str
    route: str
    status: int
    records: tuple  # (kind, record id) of this patient's records
    request_id: str


def _patient_tables():
    """Every clinic table with a patient's rows (an `id` and a `patient_id`), whichever context owns it."""
    return [table for table in TenantBase.metadata.sorted_tables
            if "patient_id" in table.c and "id" in table.c and table.name != "patients"]


@implementer(IAccessReport)
class AccessReport:
    def __init__(self, db):
        self.db = db

    def patients(self, clinic_id, text):
        """Patients whose id is `text`, or whose names contain each word of it (at most 20)."""
        open_clinic(self.db, clinic_id)
        text = (text or "").strip()
        try:
            return [p for p in [patients.find_patient(self.db, uuid.UUID(text))] if p]
        except ValueError:
            pass
        words = text.split()[:4]
        if not words:
            raise FormError("patient", "Enter the patient's name or id")
        return patients.patients_named(self.db, words, limit=20)

    def patient(self, clinic_id, patient_id):
        open_clinic(self.db, clinic_id)
        return patients.find_patient(self.db, patient_id)

    def _records(self, patient_id):
        """record id (text) → kind, for the patient and every row of theirs."""
        records = {str(patient_id): "patient"}
        for table in _patient_tables():
            for (record_id,) in self.db.execute(select(table.c.id).where(table.c.patient_id == patient_id)):
                records[str(record_id)] = table.name
        return records

    def accesses(self, clinic_id, patient_id):
        """Newest first; at most MAX_ENTRIES."""
        open_clinic(self.db, clinic_id)
        records = self._records(patient_id)
        entries = entries_naming(self.db, records, limit=MAX_ENTRIES)
        organizations, keys = self._names(entries)
        return [Access(entry.at, organizations.get(entry.owner_id, "—"), keys.get(entry.key_id,
                                                                                  entry.key_id or "—"),
                       entry.method, entry.route, entry.status,
                       tuple((records[r], r) for r in entry.record_ids if r in records), entry.request_id)
                for entry in entries]

    def _names(self, entries):
        """The organizations and masked keys of these entries, in one statement for the report."""
        names = access.display_names(self.db, workspace_ids={e.owner_id for e in entries
                                                             if e.owner_id and e.owner_kind == "workspace"},
                                     key_ids={e.key_id for e in entries if e.key_id})
        organizations = {e.owner_id: names.workspaces.get(e.owner_id, "—") if e.owner_kind == "workspace"
                         else "This clinic's own key" for e in entries if e.owner_id}
        return organizations, {key_id: key.masked for key_id, key in names.keys.items()}

    @staticmethod
    def csv(accesses):
        return csv_text(CSV_COLUMNS, ([a.at.isoformat(), a.organization, a.key, a.method, a.route, a.status,
                                      " ".join(f"{kind}:{record_id}" for kind, record_id in a.records),
                                      a.request_id] for a in accesses))


def access_report_factory(context, request):
    return AccessReport(request.db)
