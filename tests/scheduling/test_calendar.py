"""Slot arithmetic without the database: alignment in local time, working hours, block overlap edges."""

import datetime
import zoneinfo
from types import SimpleNamespace

from clinicrecords.scheduling.calendar import is_aligned, overlaps, within_hours

UTC = datetime.UTC
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")
KATHMANDU = zoneinfo.ZoneInfo("Asia/Kathmandu")  # UTC+05:45


def _at(*args, tz=UTC):
    return datetime.datetime(*args, tzinfo=tz)


def _hours(weekday, start, end):
    return SimpleNamespace(weekday=weekday, start_time=datetime.time(*start), end_time=datetime.time(*end))


def test_slots_align_to_the_local_half_hour():
    assert is_aligned(_at(2099, 6, 1, 9, 30), UTC)
    assert not is_aligned(_at(2099, 6, 1, 9, 30, 1), UTC)
    # 09:15 UTC is 15:00 in Kathmandu: a slot there, not in UTC.
    assert is_aligned(_at(2099, 6, 1, 9, 15), KATHMANDU) and not is_aligned(_at(2099, 6, 1, 9, 15), UTC)


def test_the_whole_slot_must_lie_within_the_hours_of_its_local_weekday():
    monday = [_hours(0, (9, 0), (17, 0))]
    assert within_hours(monday, _at(2099, 6, 1, 9, 0), UTC)
    assert within_hours(monday, _at(2099, 6, 1, 16, 30), UTC)
    assert not within_hours(monday, _at(2099, 6, 1, 17, 0), UTC)
    assert not within_hours(monday, _at(2099, 6, 1, 8, 30), UTC)
    assert not within_hours(monday, _at(2099, 6, 2, 9, 0), UTC)  # Tuesday
    # 07:00 UTC is 09:00 in Berlin (summer time).
    assert within_hours(monday, _at(2099, 6, 1, 7, 0), BERLIN)
    # A slot ending at local midnight crosses into the next day: never within one day's hours.
    late = [_hours(0, (0, 0), (23, 59))]
    assert not within_hours(late, _at(2099, 6, 1, 23, 30), UTC)


def test_hours_follow_daylight_saving_changes():
    # Monday 30 March 2099: Berlin is on summer time (UTC+2), 09:00 local is 07:00 UTC.
    monday = [_hours(0, (9, 0), (10, 0))]
    assert within_hours(monday, _at(2099, 3, 30, 7, 0), BERLIN)
    # Monday 23 March 2099, still winter time (UTC+1): 09:00 local is 08:00 UTC.
    assert within_hours(monday, _at(2099, 3, 23, 8, 0), BERLIN)
    assert not within_hours(monday, _at(2099, 3, 23, 7, 0), BERLIN)


def test_a_block_touching_a_slot_does_not_overlap_it():
    block = SimpleNamespace(starts_at=_at(2099, 6, 1, 9, 30), ends_at=_at(2099, 6, 1, 10, 0))
    assert overlaps(block, _at(2099, 6, 1, 9, 30))
    assert not overlaps(block, _at(2099, 6, 1, 9, 0))
    assert not overlaps(block, _at(2099, 6, 1, 10, 0))
