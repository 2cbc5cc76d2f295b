"""Lists of chart items are rendered from rows, not ORM entities (decision 0025, hot read paths), read on the
driver (`PrebuiltPages`, decision 0037): for the same records, every plain and FHIR document is identical either
way."""

import uuid

import pytest
from sqlalchemy import select

from clinicrecords.clinical import representations as rep
from clinicrecords.clinical.kinds import KINDS
from clinicrecords.clinical.items import _pages
from clinicrecords.db.tenancy import bind_to_clinic

SHAPES = {"allergy": (rep.allergy_json, rep.allergy_fhir), "condition": (rep.condition_json, rep.condition_fhir),
          "medication_statement": (rep.medication_statement_json, rep.medication_statement_fhir),
          "referral": (rep.referral_json, rep.referral_fhir)}


MODELS = {kind.resource_type: kind.model for kind in KINDS}


class _Caller:
    def __init__(self, owner_id):
        self.identity = type("Identity", (), {"owner_id": owner_id})()


@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_rows_and_entities_render_the_same_documents(world, kind):
    workspace_id, sandbox_id = world.workspace()
    model = MODELS[kind]
    with world.db() as db:
        bind_to_clinic(db, sandbox_id)
        entities = {e.id: e for e in db.scalars(select(model))}
        rows = {r.id: r for r in _pages(model).bound({}).fetch(db, None, 1000)}
        assert entities and set(rows) == set(entities)  # the sandbox seeds every kind; none is restricted
        owners = {getattr(e, "sender_owner_id", None) for e in entities.values()} | {uuid.uuid4(), None}
        callers = [_Caller(owner) for owner in owners]
        for record_id, entity in entities.items():
            for shape in SHAPES[kind]:
                for caller in callers:
                    assert shape(rows[record_id], caller) == shape(entity, caller), (kind, shape.__name__)


def test_the_list_answer_is_unchanged_over_http(world, testapp):
    """The list route still answers every sandbox allergy, legacy names without an id, in both shapes."""
    workspace_id, sandbox_id = world.workspace()
    headers = {"Authorization": f"Bearer {world.key(workspace_id=workspace_id, mode='test')}"}
    plain = testapp.get(f"/v1/clinics/{sandbox_id}/allergies?limit=100", headers=headers).json["data"]
    fhir = testapp.get(f"/v1/clinics/{sandbox_id}/allergies?limit=100",
                       headers={**headers, "Accept": "application/fhir+json"}).json["entry"]
    with world.db() as db:
        bind_to_clinic(db, sandbox_id)
        entities = db.scalars(select(MODELS["allergy"]).order_by(MODELS["allergy"].created_at,
                                                                 MODELS["allergy"].id)).all()
        caller = _Caller(None)
        assert plain == [rep.allergy_json(e, caller) for e in entities]
        assert [entry["resource"] for entry in fhir] == [rep.allergy_fhir(e, caller) for e in entities]
