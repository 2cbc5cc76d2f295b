"""The check schedule and the lapse rule as pure functions, at their boundaries."""

import datetime

import pytest

from clinicrecords.onboarding import schedule
from clinicrecords.onboarding.schedule import (LAPSED, PENDING, VERIFIED, apply_result, next_check,
                                               next_pending_check)

T = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)
MIN, HOUR, DAY = datetime.timedelta(minutes=1), datetime.timedelta(hours=1), datetime.timedelta(days=1)
SECOND = datetime.timedelta(seconds=1)


@pytest.mark.parametrize("after, expected", [
    (T, T + 5 * MIN),  # the domain was just set: first check 5 minutes later
    (T + 5 * MIN - SECOND, T + 5 * MIN),
    (T + 5 * MIN, T + 10 * MIN),
    (T + 7 * MIN, T + 10 * MIN),  # a late check keeps to the grid
    (T + 55 * MIN, T + 60 * MIN),  # the last 5-minute check is at 1 hour
    (T + 60 * MIN - SECOND, T + 60 * MIN),
    (T + 60 * MIN, T + 2 * HOUR),  # then hourly
    (T + 23 * HOUR, T + 24 * HOUR),  # the last hourly check is at 24 hours
    (T + 24 * HOUR, T + 28 * HOUR),  # then every 4 hours
    (T + 24 * HOUR + SECOND, T + 28 * HOUR),
    (T + 14 * DAY - 4 * HOUR, T + 14 * DAY),  # the last automatic check is at 14 days
    (T + 14 * DAY - SECOND, T + 14 * DAY),
    (T + 14 * DAY, None),  # then paused until "Check now"
    (T + 30 * DAY, None),
    (T - HOUR, T + 5 * MIN),  # a clock that lags the anchor still starts at the first point
])
def test_pending_schedule(after, expected):
    assert next_pending_check(T, after) == expected


def test_the_whole_pending_schedule_counts_12_then_23_then_78_checks():
    points, after = [], T
    while (after := next_pending_check(T, after)) is not None:
        points.append(after - T)
    assert len(points) == 12 + 23 + 78
    assert points[:12] == [k * 5 * MIN for k in range(1, 13)]
    assert points[12:35] == [k * HOUR for k in range(2, 25)]
    assert points[35:] == [24 * HOUR + k * 4 * HOUR for k in range(1, 79)]
    assert points[-1] == 14 * DAY


def test_verified_domains_are_checked_daily_and_never_pause():
    assert next_check(VERIFIED, T, T + 20 * DAY) == T + 21 * DAY
    assert next_check(PENDING, T, T + 20 * DAY) is None
    assert next_check(LAPSED, T, T + 30 * MIN) == T + 35 * MIN


@pytest.mark.parametrize("state", [PENDING, LAPSED, VERIFIED])
def test_found_verifies_and_clears_the_absent_run(state):
    assert apply_result(state, 2, schedule.FOUND, scheduled=True) == (VERIFIED, 0)
    assert apply_result(state, 2, schedule.FOUND, scheduled=False) == (VERIFIED, 0)


@pytest.mark.parametrize("result", sorted(schedule.ABSENT))
def test_three_absent_daily_checks_in_a_row_lapse(result):
    assert apply_result(VERIFIED, 0, result, scheduled=True) == (VERIFIED, 1)
    assert apply_result(VERIFIED, 1, result, scheduled=True) == (VERIFIED, 2)
    assert apply_result(VERIFIED, 2, result, scheduled=True) == (LAPSED, 3)


@pytest.mark.parametrize("result", sorted(schedule.INCONCLUSIVE))
def test_timeouts_and_servfail_never_count_as_absent_nor_break_the_run(result):
    assert apply_result(VERIFIED, 2, result, scheduled=True) == (VERIFIED, 2)
    assert apply_result(PENDING, 0, result, scheduled=True) == (PENDING, 0)
    assert apply_result(LAPSED, 0, result, scheduled=True) == (LAPSED, 0)


def test_an_owners_check_never_hastens_a_lapse():
    assert apply_result(VERIFIED, 2, schedule.NXDOMAIN, scheduled=False) == (VERIFIED, 2)


@pytest.mark.parametrize("state", [PENDING, LAPSED])
def test_absent_records_leave_pending_and_lapsed_domains_as_they_are(state):
    assert apply_result(state, 0, schedule.WRONG_VALUE, scheduled=True) == (state, 0)


def test_the_pending_schedule_ends_at_its_last_check():
    until = schedule.pending_checks_until(T)
    assert until == T + 14 * DAY
    assert next_pending_check(T, until - SECOND) == until and next_pending_check(T, until) is None
