"""What a bulk export offers: each FHIR type, where its rows come from and the read permission it needs.

Patient/$export writes the patient compartment's types, and beside them the records those name that are in no
patient's compartment: the clinicians its encounters name (Practitioner) and the payers its coverages name
(Organization); $export writes every clinician and every enabled payer.

Every source reads what the single reads of its kind show a key (the owning context's `*_rows_for_export`:
restricted patients and everything about them left out, sensitive encounter notes left out, legacy text-only
allergy names left out) and renders it with the same FHIR representation they answer with.
"""

from dataclasses import dataclass
from operator import attrgetter

from clinicrecords.access.interfaces import Permission
from clinicrecords.care_providers.services import care_provider_deletions_for_export, care_provider_rows_for_export
from clinicrecords.clinical.services import chart_kinds_for_export, chart_rows_for_export
from clinicrecords.encounters.services import encounter_provider_ids_for_export, encounter_rows_for_export
from clinicrecords.insurance.services import (coverage_payer_ids_for_export, coverage_rows_for_export,
                                              payer_rows_for_export)
from clinicrecords.patients.services import patient_rows_for_export
from clinicrecords.prescriptions.services import prescription_rows_for_export
from clinicrecords.providers.services import provider_rows_for_export


@dataclass(frozen=True)
class Source:
    """One kind of record in an export. `rows(since)`: the select of its rows, oldest first; `kind`: the
    representation its single reads render with; `patient_of(row)`: the patient the row is about (None for a
    source about no patient); `name`: distinguishes two sources of one FHIR type in file names; `deleted(since)`:
    the select of (id, patient_id) of its records removed at or after `since` (None: its records are never
    removed, only changed); `named_rows(since)`: for a type outside the patient compartment, the select of the
    rows Patient/$export writes, those the compartment's records name (None: the same rows at both levels)."""

    fhir_type: str
    permission: Permission
    kind: str
    rows: object
    patient_of: object = None
    name: str = ""
    deleted: object = None
    named_rows: object = None
    # The clinic collection whose single reads show this source's records (its service finds one by id, with
    # the same rules: restricted patients, sensitive encounters, another owner's fields): the FHIR base's
    # reads go through it.
    collection: str = ""
    # False: the base reads and searches it, a bulk export does not write it (PractitionerRole: the export's
    # Practitioner carries the role already).
    exported: bool = True

    def patient_id(self, row):
        """The patient `row` is about, or None for a source about no patient."""
        return self.patient_of(row) if self.patient_of is not None else None

    def rows_at(self, level, since):
        """The select of the rows an export at `level` ("system" or "patient") writes."""
        if level == "patient" and self.named_rows is not None:
            return self.named_rows(since)
        return self.rows(since)


def _chart(kind):
    return lambda since: chart_rows_for_export(kind, since)


_PATIENT = attrgetter("patient_id")

# In output order.
SOURCES = (
    Source("Patient", Permission.PatientsRead, "patient", patient_rows_for_export, attrgetter("id"),
           collection="patients"),
    # The chart's kinds (AllergyIntolerance, Condition, MedicationStatement, ServiceRequest for referrals).
    *(Source(fhir_type, permission, kind, _chart(kind), _PATIENT, collection=collection)
      for kind, fhir_type, permission, collection in chart_kinds_for_export()),
    Source("MedicationRequest", Permission.MedicationsRead, "prescription", prescription_rows_for_export, _PATIENT,
           collection="prescriptions"),
    Source("Encounter", Permission.EncountersRead, "encounter", encounter_rows_for_export, _PATIENT,
           collection="encounters"),
    Source("Coverage", Permission.CoverageRead, "coverage", coverage_rows_for_export, _PATIENT,
           collection="coverages"),
    # The clinic's clinicians, then the patients' outside care providers: both are Practitioners in FHIR, each
    # under its own read permission, in files of their own.
    Source("Practitioner", Permission.ProvidersRead, "provider", provider_rows_for_export,
           named_rows=lambda since: provider_rows_for_export(since, among=encounter_provider_ids_for_export()),
           collection="providers"),
    Source("Practitioner", Permission.CareProvidersRead, "care_provider", care_provider_rows_for_export, _PATIENT,
           name="care-provider", deleted=care_provider_deletions_for_export, collection="care-providers"),
    # Each clinician's role at the clinic (its id the clinician's), for clients that look a Practitioner's roles
    # up by search (`PractitionerRole?practitioner=`).
    Source("PractitionerRole", Permission.ProvidersRead, "provider_role", provider_rows_for_export,
           collection="providers", exported=False),
    # The payers coverages name (Coverage.payor), as the payer reads render them.
    Source("Organization", Permission.PayersRead, "payer", payer_rows_for_export,
           named_rows=lambda since: payer_rows_for_export(since, among=coverage_payer_ids_for_export()),
           collection="payers"),
)


def _permissions_by_type(sources):
    found = {}
    for source in sources:
        found[source.fhir_type] = (*found.get(source.fhir_type, ()), source.permission)
    return found


# {FHIR type: the read permissions that show it (any one: Practitioner has two sources)}, in output order: the
# types the base reads and searches, and those a bulk export writes.
BASE_TYPES = _permissions_by_type(SOURCES)
EXPORT_TYPES = _permissions_by_type(source for source in SOURCES if source.exported)

# The types of the patient compartment (R4's CompartmentDefinition "Patient"); Patient/$export offers these and
# the types their records name (NAMED_TYPES), narrowed to the records named.
NAMED_TYPES = frozenset({"Practitioner", "Organization"})
PATIENT_COMPARTMENT = frozenset(EXPORT_TYPES) - NAMED_TYPES


def readable_types(granted):
    """The exported FHIR types a key holding the permissions `granted` may read, in output order."""
    return tuple(fhir_type for fhir_type, permissions in EXPORT_TYPES.items() if set(permissions) & set(granted))


def sources_for(types, granted=None):
    """The sources an export of `types` reads, in output order; with `granted`, only those whose permission the
    key holds (a key with providers:read alone gets the clinicians' Practitioners, not the care providers')."""
    wanted = set(types)
    return tuple(source for source in SOURCES if source.exported and source.fhir_type in wanted
                 and (granted is None or source.permission in granted))
