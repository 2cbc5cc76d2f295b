"""The sandbox's fictional stock: items with fixed ids in every band, linked to the network (one kept off),
each with a short ledger of movements (fixed ids) that adds up to its seeded quantity."""

import datetime

from clinicrecords.inventory import ledger, services
from clinicrecords.inventory.bands import DEFAULT_MAX_AGE_MINUTES
from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS, SANDBOX_ITEMS, SANDBOX_UNLINKED
from clinicrecords.sandbox.interfaces import sandbox_id

# A sandbox's till never goes stale by time, so the age plays no part in its bands.
_AGE = datetime.timedelta(minutes=DEFAULT_MAX_AGE_MINUTES)
_IN_DATE = datetime.date(2030, 6, 30)
EXPIRED_LOT = ("SAL-2401", datetime.date(2024, 1, 31))

# key → [(kind, signed change, lot, expires_on, reason)]; each ledger sums to the item's seeded quantity.
SANDBOX_LEDGERS = {
    "amoxicillin-500": [("receipt", 150, "AMX-2311", _IN_DATE, None), ("dispense", -28, "AMX-2311", None, None),
                        ("write_off", -2, "AMX-2311", None, "packs damaged in delivery")],
    "paracetamol-500": [("receipt", 20, "PAR-2402", _IN_DATE, None), ("sale", -12, "PAR-2402", None, None)],
    "ibuprofen-200": [("receipt", 10, "IBU-2310", _IN_DATE, None), ("sale", -10, "IBU-2310", None, None)],
    # The expired lot is still on the shelf: transferring it out is refused, writing it off is not.
    "salbutamol-inhaler": [("receipt", 30, "SAL-2405", _IN_DATE, None),
                           ("receipt", 5, EXPIRED_LOT[0], EXPIRED_LOT[1], None)],
    "morphine-10": [("receipt", 50, "MOR-2403", _IN_DATE, None)],
}


def movement_id(key, n):
    return sandbox_id(f"stock-movement:{key}:{n}")


def seed_inventory(db, projection, clinic):
    for key, name, generic, brand, gtin, regulator_numbers, _, low_at in SANDBOX_ITEMS:
        item = services.create_item(db, projection, clinic, name=name, generic_name=generic, brand_name=brand,
                                    gtin=gtin, regulator_numbers=regulator_numbers, low_at=low_at,
                                    linked=key not in SANDBOX_UNLINKED, item_id=SANDBOX_ITEM_IDS[key])
        for n, (kind, change, lot, expires_on, reason) in enumerate(SANDBOX_LEDGERS[key], 1):
            ledger.record(db, projection, clinic, ledger.lock_item(db, item.id), kind=kind, change=change, age=_AGE,
                          source="seed", lot=lot, expires_on=expires_on, reason=reason,
                          movement_id=movement_id(key, n))
