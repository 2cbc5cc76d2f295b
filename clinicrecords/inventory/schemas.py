from marshmallow import ValidationError, fields, validate, validates_schema

from clinicrecords.api.object_rules import all_of, when
from clinicrecords.api.schemas import RequestSchema, WholeNumber
from clinicrecords.inventory.bands import BANDS
from clinicrecords.inventory.ledger import KINDS as MOVEMENT_KINDS
from clinicrecords.inventory.ledger import MAX_QUANTITY as MAX_MOVEMENT_QUANTITY
from clinicrecords.inventory.ledger import SOURCES as MOVEMENT_SOURCES
from clinicrecords.sandbox.interfaces import sandbox_id


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
MAX_BATCH_LINES = 20_000


# The stock ledger

class MovementCreate(RequestSchema):
    """A ledger movement. `quantity` counts units: 1 or more for every kind but `adjustment`, whose
    quantity is the signed change (never 0). Outbound kinds (dispense, sale, write_off, transfer_out) take
    it from the stock, inbound kinds (receipt, transfer_in) add it."""

    EXAMPLE = {"kind": "receipt", "quantity": 24, "lot": "AMX-2406", "expires_on": "2030-06-30",
               "reference": "PO-10442"}
    OBJECT_RULES = all_of(
        {"description": "quantity: 1 or more, but an adjustment's is the signed change, never 0.",
         "if": {"required": ["kind"], "properties": {"kind": {"const": "adjustment"}}},
         "then": {"properties": {"quantity": {"not": {"const": 0}}}},
         "else": {"properties": {"quantity": {"minimum": 1}}}},
        when("kind", "write_off", {"required": ["reason"], "properties": {"reason": {"minLength": 1}}},
             "A write_off needs its reason (400 reason_required)."),
    )

    kind = fields.String(required=True, validate=validate.OneOf(MOVEMENT_KINDS))
    quantity = WholeNumber(required=True, validate=validate.Range(-MAX_MOVEMENT_QUANTITY, MAX_MOVEMENT_QUANTITY))
    lot = fields.String(validate=validate.Length(1, 64))
    expires_on = fields.Date()
    reason = fields.String(validate=validate.Length(max=500),
                           metadata={"description": "required for a write_off (400 reason_required)"})
    reference = fields.String(validate=validate.Length(1, 100),
                              metadata={"description": "the caller's own reference (order, transfer note)"})

    @validates_schema
    def _quantity_for_kind(self, data, **kwargs):
        quantity, kind = data.get("quantity"), data.get("kind")
        if quantity is None or kind is None:
            return
        if kind == "adjustment" and quantity == 0:
            raise ValidationError("an adjustment changes the stock: not 0", "quantity")
        if kind != "adjustment" and quantity < 1:
            raise ValidationError("1 or more (only an adjustment carries a sign)", "quantity")


class MovementOut(RequestSchema):
    id = fields.UUID()
    item_id = fields.UUID()
    kind = fields.String(validate=validate.OneOf(MOVEMENT_KINDS))
    quantity = fields.Integer(metadata={"description": "units moved (always positive)"})
    change = fields.Integer(metadata={"description": "signed change of the item's quantity"})
    quantity_after = fields.Integer(metadata={"description": "only with inventory.stock:read"})
    lot = fields.String(allow_none=True)
    expires_on = fields.Date(allow_none=True)
    reason = fields.String(allow_none=True)
    reference = fields.String(allow_none=True)
    source = fields.String(validate=validate.OneOf(MOVEMENT_SOURCES))
    batch_id = fields.UUID(allow_none=True)
    created_at = fields.DateTime()


class BatchLine(RequestSchema):
    item_id = fields.UUID()
    gtin = fields.String(validate=validate.Length(1, 20), metadata={"description": "GTIN-8/12/13/14"})
    quantity = WholeNumber(required=True, validate=validate.Range(-MAX_MOVEMENT_QUANTITY, MAX_MOVEMENT_QUANTITY))


class StockBatchCreate(RequestSchema):
    """A till's whole snapshot: each listed item's on-hand quantity, the item named by `item_id` or by its
    `gtin` (exactly one). Items not listed keep their stock. Content errors (empty, unknown or duplicate
    items, negative quantities) and a suspicious shrink answer 409 batch_rejected."""

    EXAMPLE = {"reference": "TILL-1-000231", "items": [
        {"item_id": str(SANDBOX_ITEM_IDS["amoxicillin-500"]), "quantity": 118},
        {"gtin": "5012345678900", "quantity": 8},
        {"item_id": str(SANDBOX_ITEM_IDS["ibuprofen-200"]), "quantity": 0},
        {"item_id": str(SANDBOX_ITEM_IDS["salbutamol-inhaler"]), "quantity": 34},
    ]}

    reference = fields.String(validate=validate.Length(1, 100), metadata={"description": "the till's batch id"})
    items = fields.List(fields.Nested(BatchLine), required=True, validate=validate.Length(max=MAX_BATCH_LINES))


class BatchLineOut(RequestSchema):
    item_id = fields.UUID()
    quantity = fields.Integer()
    change = fields.Integer(metadata={"description": "the adjustment recorded (0: none)"})


class StockBatchOut(RequestSchema):
    id = fields.UUID()
    reference = fields.String(allow_none=True)
    items = fields.List(fields.Nested(BatchLineOut))
    till_was_stale = fields.Boolean()
    created_at = fields.DateTime()
