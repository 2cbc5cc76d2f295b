"""Sandbox calendars (fixed ids): two clinicians working Monday to Friday 09:00-17:00 in the sandbox's
timezone (UTC), the first away on Tuesday 2 June 2099, and one appointment the sandbox's own workspace
booked (so its test keys can cancel it). Dates in 2099 stay in the future for any sandbox."""

import datetime
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.sandbox.interfaces import sandbox_id
from clinicrecords.scheduling.calendar import SLOT
from clinicrecords.scheduling.models import Appointment, CalendarBlock, WorkingHours
from clinicrecords.scheduling.schemas import SANDBOX_APPOINTMENT_ID, SANDBOX_CALENDAR_PROVIDER_IDS

_UTC = datetime.UTC
SANDBOX_BLOCK_START = datetime.datetime(2099, 6, 2, 0, 0, tzinfo=_UTC)
SANDBOX_APPOINTMENT_START = datetime.datetime(2099, 6, 1, 10, 0, tzinfo=_UTC)


def seed_calendars(db, clinic):
    db.flush()  # the clinicians and patients they refer to
    for n, provider_id in enumerate(SANDBOX_CALENDAR_PROVIDER_IDS, 1):
        for weekday in range(5):
            db.add(WorkingHours(id=sandbox_id(f"working-hours:{n}:{weekday}"), provider_id=provider_id,
                                weekday=weekday, start_time=datetime.time(9), end_time=datetime.time(17)))
    db.add(CalendarBlock(id=sandbox_id("calendar-block:1"), provider_id=SANDBOX_CALENDAR_PROVIDER_IDS[0],
                         starts_at=SANDBOX_BLOCK_START, ends_at=SANDBOX_BLOCK_START + datetime.timedelta(days=1),
                         reason="Conference"))
    db.add(Appointment(id=SANDBOX_APPOINTMENT_ID, patient_id=SANDBOX_PATIENT_IDS[1],
                       provider_id=SANDBOX_CALENDAR_PROVIDER_IDS[0], starts_at=SANDBOX_APPOINTMENT_START,
                       ends_at=SANDBOX_APPOINTMENT_START + SLOT, status="booked", reason="Blood pressure review",
                       booked_by_owner_id=clinic.sandbox_of_workspace_id))
    db.flush()
