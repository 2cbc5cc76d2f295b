"""ItemService and ProposalService built from a plain scope: no request, a real clinic's session."""

import datetime

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.clinical.models import Allergy, Referral
from clinicrecords.clinical.services import ItemService, ProposalService, item_service_factory
from clinicrecords.review.services import SubmissionService
from clinicrecords.sandbox.interfaces import sandbox_id
from tests.common.scopes import ClinicNode, a_patient, cursors, plain_identity, plain_scope


def test_items_are_read_without_a_request_and_legacy_text_has_no_id(world):
    with plain_scope(world, world.clinic(seed=True)) as scope:
        allergies = item_service_factory(Allergy)(ClinicNode(scope), None)
        assert allergies.db is scope.db and allergies.model is Allergy
        assert allergies.get(sandbox_id("allergy:1")).substance_text == "Penicillin G"
        assert allergies.get(sandbox_id("allergy:2")) is None  # legacy_text
        rows = allergies.list({"limit": 10}, cursors(world)).items
        assert {row.id for row in rows} == {sandbox_id(f"allergy:{n}") for n in (1, 2, 3)}
        referrals = ItemService(scope.db, Referral)
        assert referrals.get(sandbox_id("referral:2")).status == "received"


def test_every_prebuilt_list_variant_pages_in_order_with_its_filters(world):
    """Each combination of patient_id, updated_since and a cursor runs its own prebuilt statement."""
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    with plain_scope(world, world.clinic()) as scope:
        patients = [a_patient(scope.db), a_patient(scope.db, family_name="Other")]
        written = []
        for minute in range(5):
            for patient_id in patients:
                at = start + datetime.timedelta(minutes=minute)
                written.append(Allergy(patient_id=patient_id, substance_text=f"S{minute}", created_at=at,
                                       updated_at=at))
        scope.db.add_all(written)
        scope.db.flush()
        hidden = a_patient(scope.db, restricted=True)
        scope.db.add(Allergy(patient_id=hidden, substance_text="Hidden", created_at=start, updated_at=start))
        scope.db.flush()
        allergies = ItemService(scope.db, Allergy)

        def walk(**query):
            seen, cursor = [], None
            while True:
                after = {"starting_after": cursor} if cursor else {}
                page = allergies.list({"limit": 3, **query, **after}, cursors(world))
                seen += [row.id for row in page.items]
                if not page.has_more:
                    return seen
                cursor = page.next_cursor

        def expected(keep):
            return [a.id for a in sorted(written, key=lambda a: (a.created_at, a.id)) if keep(a)]

        later = start + datetime.timedelta(minutes=3)
        assert walk() == expected(lambda a: True)
        assert walk(patient_id=patients[0]) == expected(lambda a: a.patient_id == patients[0])
        assert walk(updated_since=later) == expected(lambda a: a.updated_at >= later)
        assert walk(patient_id=patients[1], updated_since=later) == expected(
            lambda a: a.patient_id == patients[1] and a.updated_at >= later)
        assert walk(patient_id=hidden) == []


def _proposals(scope, registry):
    return ProposalService(scope, registry["clinical.rxnorm"], SubmissionService(scope, registry))


def test_proposals_become_submissions_of_the_scopes_caller(world, registry):
    sender = plain_identity()
    with plain_scope(world, world.clinic(), identity=sender) as scope:
        proposals = _proposals(scope, registry)
        patient_id = a_patient(scope.db)
        sent = proposals.propose("condition", {"patient_id": patient_id, "icd10_code": "E119"})
        assert (sent.resource_type, sent.action, sent.sender_owner_id) == ("condition", "create", sender.owner_id)
        assert sent.payload["icd10_code"] == "E11.9" and sent.payload["display"]
        nka = proposals.propose("allergy", {"patient_id": patient_id, "no_known_allergies": True})
        assert nka.action == "no_known_allergies"
        with pytest.raises(Problem) as hidden:
            proposals.propose("condition", {"patient_id": a_patient(scope.db, restricted=True),
                                            "icd10_code": "E119"})
        assert hidden.value.errors == [{"pointer": "/patient_id", "message": "No such patient in this clinic."}]


def test_only_the_sender_of_a_referral_may_change_it(world, registry):
    with plain_scope(world, world.clinic(seed=True), identity=plain_identity()) as scope:
        referral = ItemService(scope.db, Referral).get(sandbox_id("referral:2"))
        with pytest.raises(Problem) as refused:
            _proposals(scope, registry).propose_change("referral", referral, {"priority": "urgent"}, "status")
        assert refused.value.detail == "This referral was sent by someone else."
