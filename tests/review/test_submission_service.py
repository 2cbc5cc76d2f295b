"""SubmissionService built from a plain scope: no request, a real clinic's session, the app's registry."""

from types import SimpleNamespace

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.review.services import SubmissionService, submission_service_factory
from tests.common.scopes import ClinicNode, a_patient, cursors, plain_identity, plain_scope


def _send(service, patient_id, substance="Peanut", reference=None):
    payload = {"patient_id": str(patient_id), "substance": {"text": substance}}
    return service.submit(resource_type="allergy", action="create", patient_id=patient_id, target_id=patient_id,
                          payload=payload, client_reference=reference)


def test_a_sender_follows_and_withdraws_only_its_own_submissions(world, registry):
    sender, other = plain_identity(), plain_identity()
    clinic_id = world.clinic()
    with plain_scope(world, clinic_id, identity=sender) as scope:
        service = submission_service_factory(ClinicNode(scope), SimpleNamespace(registry=registry))
        assert (service.db, service.identity) == (scope.db, sender)
        patient_id = a_patient(scope.db)
        sent = _send(service, patient_id, reference="ref-1")
        assert sent.review_status == "pending" and sent.sender_owner_id == sender.owner_id
        assert _send(service, patient_id, reference="ref-1").id == sent.id  # same reference, same content
        with pytest.raises(Problem) as conflict:
            _send(service, patient_id, substance="Latex", reference="ref-1")
        assert conflict.value.code == "client_reference_conflict"
        assert (service.get_own(sent.id).id, service.get_own(sent.id).review_status) == (sent.id, "pending")
        assert [s.id for s in service.list_own(["allergy"], {"limit": 10}, cursors(world)).items] == [sent.id]
        assert service.list_own(["condition"], {"limit": 10}, cursors(world)).items == []
    with plain_scope(world, clinic_id, identity=other) as scope:
        assert SubmissionService(scope, registry).get_own(sent.id) is None
    with plain_scope(world, clinic_id, identity=sender) as scope:
        service = SubmissionService(scope, registry)
        withdrawn = service.withdraw(service.get_own(sent.id))
        assert (withdrawn.review_status, withdrawn.decision_reason) == ("rejected", "withdrawn")
        with pytest.raises(Problem) as decided:
            service.withdraw(withdrawn)
        assert decided.value.code == "submission_not_pending"


def test_a_restricted_patients_submissions_are_not_followed(world, registry):
    with plain_scope(world, world.clinic(), identity=plain_identity()) as scope:
        service = SubmissionService(scope, registry)
        sent = _send(service, a_patient(scope.db, restricted=True))
        assert service.get_own(sent.id) is None
        assert service.list_own(["allergy"], {"limit": 10}, cursors(world)).items == []


def test_a_sender_changes_its_pending_submission_until_it_is_decided(world, registry):
    sender = plain_identity()
    with plain_scope(world, world.clinic(), identity=sender) as scope:
        service = SubmissionService(scope, registry)
        sent = service.get_own(_send(service, a_patient(scope.db), reference="ref-1").id)
        changed = service.change(sent, {"criticality": "low", "client_reference": "ref-2"})
        assert (changed.id, changed.review_status, changed.client_reference) == (sent.id, "pending", "ref-2")
        assert changed.payload["criticality"] == "low" and changed.payload["substance"] == {"text": "Peanut"}
        with pytest.raises(Problem) as invalid:
            service.change(changed, {"criticality": "extreme"})
        assert invalid.value.code == "invalid_request"
        service.withdraw(changed)
        with pytest.raises(Problem) as decided:
            service.change(changed, {"criticality": "high"})
        assert decided.value.code == "submission_not_pending"
