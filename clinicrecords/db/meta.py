"""Declarative bases: one for the shared control schema, one for the per-clinic schema.

Tenant tables carry no schema: their statements name them unqualified, and each transaction that reads or
writes them runs with the clinic's schema as its transaction-local search_path (db/tenancy.py), so one
statement text serves every clinic and nothing from a request is ever pasted into SQL text.
"""

import datetime
import decimal
import uuid

from sqlalchemy import DateTime, MetaData, Numeric, Uuid
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase

CONTROL_SCHEMA = "control"

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

TYPE_ANNOTATION_MAP = {
    uuid.UUID: Uuid(as_uuid=True),
    datetime.datetime: DateTime(timezone=True),
    decimal.Decimal: Numeric(18, 4),
    dict: JSONB,
    list: JSONB,
}


class ControlBase(DeclarativeBase):
    metadata = MetaData(schema=CONTROL_SCHEMA, naming_convention=NAMING_CONVENTION)
    type_annotation_map = TYPE_ANNOTATION_MAP


class TenantBase(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = TYPE_ANNOTATION_MAP
    # What the server sets on a write (created_at, updated_at, submitted_at, ...) comes back in that write's
    # own statement (INSERT/UPDATE ... RETURNING), so an object just written is whole: no SELECT after it.
    __mapper_args__ = {"eager_defaults": True}
