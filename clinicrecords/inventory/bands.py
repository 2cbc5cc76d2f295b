"""Stock bands and till freshness: pure rules, shared by the tenant reads and the network projection.

- band of an item: out when quantity is 0, low while 1 <= quantity <= low_at, in_stock above low_at;
- unknown for every item of a clinic while its till is stale: announced stale (staff command or sweep),
  never reported, or silent for longer than `inventory.till_max_age_minutes` (default 30). A stale till
  never shows an item as out.
"""

import datetime

from clinicrecords.settings import InventorySettings

BANDS = ("in_stock", "low", "out", "unknown")
DEFAULT_MAX_AGE_MINUTES = InventorySettings.till_max_age_minutes


def stock_band(quantity, low_at):
    if quantity <= 0:
        return "out"
    if quantity <= low_at:
        return "low"
    return "in_stock"


def max_age(settings):
    """How long a till may stay silent, from the `inventory.*` settings (an InventorySettings)."""
    return datetime.timedelta(minutes=settings.till_max_age_minutes)


def stale_by_time_since(till, age):
    """When a silent till became stale by time (None if it never reported)."""
    if till is None or till.last_reported_at is None:
        return None
    return till.last_reported_at + age


def is_stale(till, now, age, sandbox=False):
    """A sandbox's fictional till never goes stale by time (its seeded bands stay readable)."""
    if till is not None and till.stale_since is not None:
        return True
    if till is None or till.last_reported_at is None:
        return not sandbox
    return not sandbox and till.last_reported_at + age <= now


def effective_band(item, till, now, age, sandbox=False):
    return "unknown" if is_stale(till, now, age, sandbox) else stock_band(item.quantity, item.low_at)


def as_of(item, till, now, age, sandbox=False):
    """When the band shown became true: the later of the item's last stock change and the till's last
    report; for a stale till, the moment it became stale."""
    if is_stale(till, now, age, sandbox):
        if till is not None and till.stale_since is not None:
            return till.stale_since
        return stale_by_time_since(till, age) or item.stock_changed_at
    if till is None or till.last_reported_at is None:
        return item.stock_changed_at
    return max(item.stock_changed_at, till.last_reported_at)
