import datetime
import uuid

from sqlalchemy import ForeignKey, String, func
from sqlalchemy.orm import Mapped, mapped_column

from clinicrecords.db.meta import ControlBase


class TermsAcceptance(ControlBase):
    """A workspace's acceptance of one version of the API Terms: by which member (null: recorded by an
    operator) and when. Append-only in practice: a new version is a new row."""

    __tablename__ = "terms_acceptances"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    workspace_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("workspaces.id"), index=True)
    version: Mapped[str] = mapped_column(String(20))
    account_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("portal_accounts.id"))
    accepted_at: Mapped[datetime.datetime] = mapped_column(server_default=func.now())
