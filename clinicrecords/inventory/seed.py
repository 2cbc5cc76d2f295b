"""The sandbox's fictional stock: items with fixed ids in every band, linked to the network (one kept off)."""

import datetime

from clinicrecords.inventory import services
from clinicrecords.inventory.bands import DEFAULT_MAX_AGE_MINUTES
from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS, SANDBOX_ITEMS, SANDBOX_UNLINKED

# A sandbox's till never goes stale by time, so the age plays no part in its bands.
_AGE = datetime.timedelta(minutes=DEFAULT_MAX_AGE_MINUTES)


def seed_inventory(db, clinic):
    for key, name, generic, brand, gtin, regulator_numbers, quantity, low_at in SANDBOX_ITEMS:
        item = services.create_item(db, clinic, name=name, generic_name=generic, brand_name=brand, gtin=gtin,
                                    regulator_numbers=regulator_numbers, low_at=low_at,
                                    linked=key not in SANDBOX_UNLINKED, item_id=SANDBOX_ITEM_IDS[key])
        if quantity:
            services.set_stock(db, clinic, item.id, quantity, _AGE)
