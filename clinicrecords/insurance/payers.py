"""The clinic's payer directory: what callers search, and what staff add, enable and disable."""

import unicodedata

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.api.pagination import keyset_page, list_cursors
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.errors import InvalidInput
from clinicrecords.insurance.interfaces import IPayers
from clinicrecords.insurance.models import Payer


class PayerError(InvalidInput):
    """Bad input for a payer; nothing was written."""


# Letters with a stroke or ligatures that Unicode does not decompose into a base letter and a mark.
_UNDECOMPOSED = str.maketrans({"ø": "o", "đ": "d", "ð": "d", "ł": "l", "ħ": "h", "ı": "i", "æ": "ae", "œ": "oe",
                               "þ": "th"})


def fold(text):
    """Case- and accent-insensitive form: NFKD, combining marks dropped, casefolded."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold().translate(_UNDECOMPOSED)


def _like_escape(text):
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@implementer(IPayers)
class PayerService:
    def __init__(self, db, cursors):
        self.db = db
        self.cursors = cursors

    def _enabled(self):
        return select(Payer).where(Payer.enabled.is_(True))

    def get(self, payer_id):
        """An enabled payer, or None (a disabled payer answers like an absent one)."""
        return self.db.scalar(self._enabled().where(Payer.id == payer_id))

    def list(self, query):
        statement = self._enabled()
        if query.get("q"):
            statement = statement.where(Payer.search_name.like(f"%{_like_escape(fold(query['q']))}%", escape="\\"))
        return keyset_page(self.cursors, self.db, statement, (Payer.search_name, Payer.id), query)


def payer_service_factory(context, request):
    return PayerService(clinic_scope(context).db, list_cursors(request))


def _codes(values, name, length):
    cleaned = []
    for value in values or ():
        value = value.strip()
        if not value or len(value) > length:
            raise PayerError(f"{name} values must be 1 to {length} characters")
        cleaned.append(value)
    return cleaned


def add_payer(db, name, primary_payer_id, coverage_types=(), operating_states=(), enabled=False,
              payer_id=None):
    name = (name or "").strip()
    primary_payer_id = (primary_payer_id or "").strip()
    if not name or len(name) > 200:
        raise PayerError("--name must be 1 to 200 characters")
    if not primary_payer_id or len(primary_payer_id) > 64:
        raise PayerError("--primary-payer-id must be 1 to 64 characters")
    payer = Payer(display_name=name, search_name=fold(name), primary_payer_id=primary_payer_id,
                  coverage_types=_codes(coverage_types, "--coverage-type", 40),
                  operating_states=_codes(operating_states, "--operating-state", 10), enabled=enabled)
    if payer_id is not None:
        payer.id = payer_id
    db.add(payer)
    db.flush()
    return payer


def get_payer(db, payer_id):
    payer = db.get(Payer, payer_id)
    if payer is None:
        raise PayerError(f"no payer {payer_id} in this clinic")
    return payer


def set_payer_enabled(db, payer_id, enabled):
    payer = get_payer(db, payer_id)
    payer.enabled = enabled
    db.flush()
    return payer
