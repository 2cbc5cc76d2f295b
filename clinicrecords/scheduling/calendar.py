"""Calendar arithmetic, free of the database: slots, weekdays, working hours, blocks.

Slots are SLOT long and start on the hour or half hour of the clinic's local time (its `timezone`).
"""

import datetime
import zoneinfo

SLOT = datetime.timedelta(minutes=30)
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def clinic_zone(clinic):
    return zoneinfo.ZoneInfo(clinic.timezone)


def is_aligned(start, zone):
    local = start.astimezone(zone)
    return local.minute % 30 == 0 and local.second == 0 and local.microsecond == 0


def within_hours(hours, start, zone):
    """Does the slot starting at `start` lie inside one of `hours` (WorkingHours rows) on its local day?"""
    local_start = start.astimezone(zone)
    local_end = (start + SLOT).astimezone(zone)
    if local_end.date() != local_start.date():
        return False
    return any(h.weekday == local_start.weekday() and h.start_time <= local_start.time()
               and local_end.time() <= h.end_time for h in hours)


def overlaps(block, start):
    return block.starts_at < start + SLOT and block.ends_at > start
