from marshmallow import fields, validate

from clinicrecords.api.schemas import RequestSchema
from clinicrecords.inventory.bands import BANDS
from clinicrecords.sandbox.ids import sandbox_id


class CodesOut(RequestSchema):
    gtin = fields.String(allow_none=True, metadata={"description": "GTIN-14 (shorter GTINs zero-padded)"})
    regulator_numbers = fields.List(fields.String())


class InventoryItemOut(RequestSchema):
    """The plain inventory item. `band` only with inventory.availability:read, `quantity` only with
    inventory.stock:read: without the permission the field is absent, not null."""

    id = fields.UUID()
    name = fields.String()
    generic_name = fields.String(allow_none=True)
    brand_name = fields.String(allow_none=True)
    codes = fields.Nested(CodesOut)
    linked = fields.Boolean()
    low_at = fields.Integer(metadata={"description": "low while 1 <= quantity <= low_at"})
    band = fields.String(validate=validate.OneOf(BANDS))
    as_of = fields.DateTime()
    quantity = fields.Integer()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()


# The sandbox's fictional stock (fixed ids, the same in every workspace's sandbox).
SANDBOX_ITEMS = [
    # (key, name, generic, brand, gtin, regulator numbers, quantity, low_at)
    ("amoxicillin-500", "Amoxicillin 500 mg capsules", "amoxicillin", "Amoxil", "05000456012348",
     ["PL 00010/0001"], 120, 20),
    ("paracetamol-500", "Paracetamol 500 mg tablets", "paracetamol", "Panadol", "05012345678900",
     ["PL 00020/0002"], 8, 10),
    ("ibuprofen-200", "Ibuprofen 200 mg tablets", "ibuprofen", "Nurofen", "05023456789010", ["PL 00030/0003"],
     0, 10),
    ("salbutamol-inhaler", "Salbutamol 100 micrograms inhaler", "salbutamol", "Ventolin", "05034567890120",
     ["PL 00040/0004"], 35, 5),
    # Kept off the network: never found by a search, listed only to inventory reads.
    ("morphine-10", "Morphine sulfate 10 mg tablets", "morphine", None, "05045678901230", ["PL 00050/0005"],
     50, 10),
]
SANDBOX_ITEM_IDS = {key: sandbox_id(f"inventory-item:{key}") for key, *_ in SANDBOX_ITEMS}
SANDBOX_UNLINKED = {"morphine-10"}
