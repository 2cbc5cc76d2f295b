"""The clinic's clinicians: read through the API, recorded by staff (operator command)."""

import datetime
import re
import uuid

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.api.pagination import keyset_page
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.errors import InvalidInput
from clinicrecords.providers.models import Provider
from clinicrecords.providers.npi import NPI_PATTERN, is_valid_npi, npi_check_digit, validate_npi
from clinicrecords.providers.schemas import ROLES
from clinicrecords.providers.interfaces import IProviderService

__all__ = ["NPI_PATTERN", "ProviderService", "clinicians_among", "is_valid_npi", "npi_check_digit", "parse_licence",
           "provider_exists", "provider_rows_for_export", "provider_service_factory", "validate_npi"]

_JURISDICTION = re.compile(r"^[A-Z]{2}$")


def provider_exists(db, provider_id):
    """Whether the clinic has this clinician."""
    return db.get(Provider, provider_id) is not None


def clinicians_among(db, provider_ids):
    """The clinicians whose id `provider_ids` (a select of ids) yields, in a stable order: family name, id."""
    return db.scalars(select(Provider).where(Provider.id.in_(provider_ids))
                      .order_by(Provider.family_name, Provider.id)).all()


@implementer(IProviderService)
class ProviderService:
    def __init__(self, db):
        self.db = db

    def get(self, provider_id):
        return self.db.get(Provider, provider_id)

    def list(self, query, cursors):
        statement = select(Provider)
        if query.get("updated_since"):
            statement = statement.where(Provider.updated_at >= query["updated_since"])
        return keyset_page(cursors, self.db, statement, (Provider.created_at, Provider.id), query)

    def add(self, given_name, family_name, role, specialties=(), npi=None, licences=(), provider_id=None):
        """Staff record a clinician. `licences` are "JURISDICTION:NUMBER[:EXPIRES_ON]" strings."""
        for label, value in (("given name", given_name), ("family name", family_name)):
            if not value or not value.strip() or len(value) > 100:
                raise InvalidInput(f"the {label} must be 1 to 100 characters")
        if role not in ROLES:
            raise InvalidInput(f"role must be one of {', '.join(ROLES)}")
        if npi is not None and not is_valid_npi(npi):
            raise InvalidInput("the NPI must be 10 digits whose last digit is the Luhn check digit")
        provider = Provider(id=provider_id or uuid.uuid4(), given_name=given_name.strip(),
                            family_name=family_name.strip(), role=role,
                            specialties=[s.strip() for s in specialties if s.strip()], npi=npi,
                            licences=[parse_licence(text) for text in licences])
        self.db.add(provider)
        self.db.flush()
        return provider


def parse_licence(text):
    parts = text.split(":")
    if len(parts) not in (2, 3) or not _JURISDICTION.match(parts[0]) or not 1 <= len(parts[1]) <= 40:
        raise InvalidInput("a licence is JURISDICTION:NUMBER[:EXPIRES_ON], e.g. MA:123456:2027-06-30")
    expires_on = None
    if len(parts) == 3:
        try:
            expires_on = datetime.date.fromisoformat(parts[2]).isoformat()
        except ValueError:
            raise InvalidInput("a licence's expiry is an ISO 8601 date") from None
    return {"jurisdiction": parts[0], "number": parts[1], "expires_on": expires_on}


def provider_service_factory(context, request):
    return ProviderService(clinic_scope(context).db)


def provider_rows_for_export(since=None, among=None):
    """The rows of the clinic's clinicians a bulk export writes, oldest first; with `since`, those changed at or
    after it; `among` (a select of ids) narrows them."""
    statement = select(*Provider.__table__.columns)
    if among is not None:
        statement = statement.where(Provider.id.in_(among))
    if since is not None:
        statement = statement.where(Provider.updated_at >= since)
    return statement.order_by(Provider.created_at, Provider.id)
