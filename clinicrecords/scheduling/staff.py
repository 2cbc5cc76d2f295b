"""What clinic staff do to clinicians' calendars (operator CLI; the clinic's own screens call the same)."""

import uuid

from sqlalchemy import delete, select

from clinicrecords.errors import InvalidInput
from clinicrecords.providers.services import provider_exists
from clinicrecords.scheduling.calendar import WEEKDAYS
from clinicrecords.scheduling.models import CalendarBlock, WorkingHours


class CalendarError(InvalidInput):
    """A calendar change that cannot be made; nothing was written."""


def _provider(db, provider_id):
    if not provider_exists(db, provider_id):
        raise CalendarError(f"no clinician {provider_id} in this clinic")


def set_hours(db, provider_id, weekdays, start=None, end=None):
    """Replace the clinician's hours on `weekdays` (0 Monday .. 6 Sunday); no start and end: days off."""
    _provider(db, provider_id)
    if not weekdays:
        raise CalendarError("name at least one weekday")
    if (start is None) != (end is None):
        raise CalendarError("--start and --end go together (or give --off)")
    if start is not None and not start < end:
        raise CalendarError("--start must be before --end")
    db.execute(delete(WorkingHours).where(WorkingHours.provider_id == provider_id,
                                          WorkingHours.weekday.in_(weekdays)))
    if start is not None:
        for weekday in sorted(set(weekdays)):
            db.add(WorkingHours(id=uuid.uuid4(), provider_id=provider_id, weekday=weekday, start_time=start,
                                end_time=end))
    db.flush()
    return hours_of(db, provider_id)


def hours_of(db, provider_id):
    rows = db.scalars(select(WorkingHours).where(WorkingHours.provider_id == provider_id)
                      .order_by(WorkingHours.weekday)).all()
    return [{"weekday": WEEKDAYS[h.weekday], "start": f"{h.start_time:%H:%M}", "end": f"{h.end_time:%H:%M}"}
            for h in rows]


def block_time(db, provider_id, starts_at, ends_at, reason=None):
    _provider(db, provider_id)
    if not starts_at < ends_at:
        raise CalendarError("--from must be before --to")
    if reason is not None and not 1 <= len(reason.strip()) <= 200:
        raise CalendarError("--reason must be 1 to 200 characters")
    block = CalendarBlock(id=uuid.uuid4(), provider_id=provider_id, starts_at=starts_at, ends_at=ends_at,
                          reason=reason.strip() if reason else None)
    db.add(block)
    db.flush()
    return block
