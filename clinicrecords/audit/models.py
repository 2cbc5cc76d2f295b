"""`audit_log`: append-only (a trigger refuses UPDATE and DELETE; production also withholds the grants)."""

import datetime
import uuid

from sqlalchemy import DDL, Integer, String, event
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.clock import now as clock_now
from clinicrecords.db.meta import TenantBase

APPEND_ONLY_FUNCTION = """
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
END
$$
"""
APPEND_ONLY_TRIGGER = (
    "CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_log "
    "FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()"
)


class AuditEntry(TenantBase):
    __tablename__ = "audit_log"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    at: Mapped[datetime.datetime] = mapped_column(default=clock_now, index=True)
    request_id: Mapped[str] = mapped_column(String(64))
    key_id: Mapped[str | None] = mapped_column(String(64), index=True)
    owner_kind: Mapped[str | None] = mapped_column(String(16))
    owner_id: Mapped[uuid.UUID | None]
    method: Mapped[str] = mapped_column(String(10))
    route: Mapped[str] = mapped_column(String(300))
    record_ids: Mapped[list] = mapped_column()
    status: Mapped[int] = mapped_column(Integer)


# A schema built for a new clinic (create_all, search_path set to the clinic's schema) gets the same trigger
# as a migrated one.
event.listen(AuditEntry.__table__, "after_create", DDL(APPEND_ONLY_FUNCTION))
event.listen(AuditEntry.__table__, "after_create", DDL(APPEND_ONLY_TRIGGER))
