"""Reading one kind of chart item: the prebuilt statements of its reads and lists, with the restricted-patient
rule (docs/decisions/0012-clinical-items-review-queue.md, "Restricted patients")."""

import functools
import operator

from sqlalchemy import Uuid, bindparam, select
from zope.interface import implementer

from clinicrecords.api.pagination import PrebuiltPages, keyset_page
from clinicrecords.clinical.interfaces import IChartItems
from clinicrecords.clinical.models import Allergy
from clinicrecords.db.prebuilt import Prebuilt
from clinicrecords.patients.services import visible


@implementer(IChartItems)
class ItemService:
    """Reads of one kind of chart item for API callers."""

    def __init__(self, db, model):
        self.db = db
        self.model = model

    def get(self, item_id):
        """The item as a read-only row (its views render it or read its ids), or None when absent or its
        patient is restricted. Legacy allergy names have no id."""
        return first_visible(self.model, self.db, item_id)

    def list(self, query, cursors):
        """A page of rows (not entities): the representations read columns only
        (tests/clinical/test_rows_render_alike.py proves plain and FHIR identical)."""
        pages = _pages(self.model).bound({"patient_id": query.get("patient_id"),
                                           "updated_since": query.get("updated_since")})
        return keyset_page(cursors, self.db, pages, (self.model.created_at, self.model.id), query, rows=True)


# Built once per kind's model: constructing these showed in the profile of every read.
@functools.cache
def _get(model):
    statement = visible(select(*model.__table__.columns), model.patient_id).where(
        model.id == bindparam("item_id", type_=Uuid()))
    return Prebuilt(statement.where(Allergy.entry != "legacy_text") if model is Allergy else statement)


@functools.cache
def _pages(model):
    return PrebuiltPages(visible(select(*model.__table__.columns), model.patient_id), (model.created_at, model.id),
                         {"patient_id": (model.patient_id, operator.eq),
                          "updated_since": (model.updated_at, operator.ge)})


def first_visible(model, db, item_id):
    """The item of `model` with this id as a read-only row, or None when absent or its patient is restricted."""
    return _get(model).first(db, item_id=item_id)
