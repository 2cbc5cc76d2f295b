"""Sandbox encounters (fixed ids): completed visits, a clinic-opened draft, a draft opened by the sandbox's own
workspace (editable by its test keys), and a sensitive note (hidden)."""

import datetime

from clinicrecords.encounters.models import Encounter
from clinicrecords.encounters.schemas import SANDBOX_APP_DRAFT_ID, SANDBOX_ENCOUNTER_IDS
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.providers.interfaces import SANDBOX_PROVIDER_IDS


def _at(day, hour, minute=0):
    return datetime.datetime(2025, 9, day, hour, minute, tzinfo=datetime.UTC)


_ENCOUNTERS = [
    # patient, provider, status, class, type, reason, start, end, sensitive
    (0, 0, "completed", "ambulatory", "Annual physical", "Routine check-up", _at(3, 9), _at(3, 9, 30), False),
    (1, 2, "completed", "virtual", "Follow-up consultation", "Blood pressure review", _at(8, 14), _at(8, 14, 20),
     False),
    (2, 1, "draft", "ambulatory", "New patient visit", "Persistent cough", _at(15, 10), None, False),
    (3, 1, "completed", "ambulatory", "Counselling", "Confidential consultation", _at(17, 11), _at(17, 12), True),
]


def seed_encounters(db, clinic):
    db.flush()  # the patients and clinicians they refer to
    for encounter_id, (patient, provider, status, cls, type_, reason, start, end, sensitive) in zip(
            SANDBOX_ENCOUNTER_IDS, _ENCOUNTERS, strict=True):
        db.add(Encounter(id=encounter_id, patient_id=SANDBOX_PATIENT_IDS[patient],
                         provider_id=SANDBOX_PROVIDER_IDS[provider], status=status, encounter_class=cls,
                         type=type_, reason=reason, start_at=start, end_at=end, sensitive=sensitive,
                         signed_at=end if status == "completed" else None))
    db.add(Encounter(id=SANDBOX_APP_DRAFT_ID, patient_id=SANDBOX_PATIENT_IDS[0], provider_id=SANDBOX_PROVIDER_IDS[0],
                     status="draft", encounter_class="virtual", type="Video follow-up", reason="Medication review",
                     start_at=_at(22, 16), end_at=None, sensitive=False,
                     opened_by_owner_id=clinic.sandbox_of_workspace_id))
    db.flush()
