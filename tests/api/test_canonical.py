"""One canonical text under Idempotency-Key and client_reference (clinicrecords/api/canonical.py): what "the
same content" means for both, and a text that stays what stored submission hashes were written with."""

import decimal
import hashlib
import json
import uuid

import pytest

from clinicrecords.api.canonical import canonical_hash, canonical_json, digest
from clinicrecords.clinical import schemas
from clinicrecords.review.services import content_hash


def _written_before(value):
    """How a submission's content hash was written before the two shared one canonical text."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


SENDS = [schemas.AllergyCreate.EXAMPLE, schemas.ConditionCreate.EXAMPLE, schemas.MedicationStatementCreate.EXAMPLE,
         schemas.ReferralCreate.EXAMPLE,
         {"substance": {"text": "Pénicilline ✓ \u2028 \"quoted\" \\ back"}, "category": [], "note": None,
          "flags": [True, False], "count": 3, "nested": {"b": [{"z": 1, "a": "x"}], "a": {}}}]


@pytest.mark.parametrize("payload", SENDS)
def test_a_submission_hash_is_what_it_was_written_as(payload):
    content = {"resource_type": "allergy", "action": "update", "target_id": str(uuid.uuid4()), "payload": payload,
               "origin_assistant_name": "Scribe"}
    assert canonical_hash(content) == _written_before(content)
    assert content_hash("allergy", "update", content["target_id"], payload, "Scribe") == _written_before(content)


def test_one_text_per_meaning():
    assert canonical_json(json.loads('{"b": [1, 2.50], "a": {"y": 1.0, "x": "é"}}', parse_float=decimal.Decimal)) \
        == canonical_json({"a": {"x": "é", "y": 1}, "b": [1, decimal.Decimal("2.5")]}) \
        == '{"a":{"x":"\\u00e9","y":1},"b":[1,2.5]}'
    assert canonical_json({"n": "1"}) != canonical_json({"n": 1})
    assert canonical_json(0.1) == "0.1" and canonical_json(True) == "true" and canonical_json(None) == "null"


def test_parts_never_run_together():
    assert digest(b"ab", b"c") != digest(b"a", b"bc")
