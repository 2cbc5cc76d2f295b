"""The one clock of the service: every "now" the code records or compares comes from here, so a test can
stop or move time in one place."""

import datetime


def now():
    """The current time, timezone-aware in UTC."""
    return datetime.datetime.now(datetime.UTC)
