"""When a workspace's domain is checked next, and what a check's outcome does to its state: pure functions.

Pending (and lapsed) domains follow one schedule, anchored where it started (domain set, "Check now", or
the lapse): every 5 minutes up to 1 hour, hourly up to 24 hours, every 4 hours up to 14 days, then paused.
Check times are points of that grid, so a late worker skips the points it missed instead of bunching them.
A verified domain is checked daily; 3 daily checks in a row that find it absent make it lapse.
"""

import datetime

PENDING, VERIFIED, LAPSED = "pending", "verified", "lapsed"
STATES = (PENDING, VERIFIED, LAPSED)

FOUND = "found"
WRONG_VALUE, NO_TXT, NXDOMAIN = "wrong_value", "no_txt_record", "nxdomain"
TIMEOUT, SERVFAIL, DNS_ERROR = "timeout", "servfail", "dns_error"
ABSENT = frozenset({WRONG_VALUE, NO_TXT, NXDOMAIN})
# The resolver could not say: never evidence that the record is gone.
INCONCLUSIVE = frozenset({TIMEOUT, SERVFAIL, DNS_ERROR})
RESULTS = (FOUND, *sorted(ABSENT), *sorted(INCONCLUSIVE))

# (the phase ends this long after the anchor, a check every `step` within it)
PHASES = (
    (datetime.timedelta(hours=1), datetime.timedelta(minutes=5)),
    (datetime.timedelta(hours=24), datetime.timedelta(hours=1)),
    (datetime.timedelta(days=14), datetime.timedelta(hours=4)),
)
VERIFIED_RECHECK = datetime.timedelta(days=1)
LAPSE_AFTER_ABSENT_CHECKS = 3


def next_pending_check(anchor, after):
    """The first check point of the schedule anchored at `anchor` strictly later than `after`, or None when
    the schedule has ended (automatic checks paused until the owner asks for a check)."""
    phase_start = anchor
    for ends_after, step in PHASES:
        phase_end = anchor + ends_after
        if after < phase_start:
            return phase_start + step
        if after < phase_end:
            return phase_start + ((after - phase_start) // step + 1) * step
        phase_start = phase_end
    return None


def pending_checks_until(anchor):
    """The last automatic check of the pending schedule anchored at `anchor` (then paused)."""
    return anchor + PHASES[-1][0]


def next_check(state, anchor, after):
    """When the domain is checked next, given its state after the check made at `after`."""
    if state == VERIFIED:
        return after + VERIFIED_RECHECK
    return next_pending_check(anchor, after)


def apply_result(state, absent_checks, result, scheduled):
    """(state, absent_checks) after a check's result. Only scheduled checks of a verified domain count
    towards a lapse, so an owner's "Check now" can confirm a record but never makes it lapse sooner."""
    if result == FOUND:
        return VERIFIED, 0
    if result in ABSENT and state == VERIFIED and scheduled:
        absent_checks += 1
        if absent_checks >= LAPSE_AFTER_ABSENT_CHECKS:
            return LAPSED, absent_checks
    return state, absent_checks
