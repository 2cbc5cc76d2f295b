import uuid

import pytest

from clinicrecords.patients.services import PatientService
from tests.common.cli import ok, refused  # noqa: F401  (re-exported: this context's tests import them from here)


class Clinic:
    """A connected clinic with one patient, and helpers to send through the API as the connected key."""

    def __init__(self, testapp, world, connected):
        self.testapp = testapp
        self.world = world
        self.connected = connected
        self.id = connected.clinic_id
        self.headers = connected.headers
        with world.request() as request:
            from clinicrecords.clinics.services import open_clinic
            open_clinic(request.db, self.id)
            self.patient_id = str(PatientService(request.db).create(
                {"given_name": "Ada", "family_name": "Quill"}).id)

    def url(self, path):
        return f"/v1/clinics/{self.id}/{path}"

    def send(self, path, body, status=202, headers=None, method="post"):
        send = getattr(self.testapp, f"{method}_json")
        return send(self.url(path), body, headers={**self.headers, "Idempotency-Key": str(uuid.uuid4()),
                                                   **(headers or {})}, status=status)

    def allergy(self, substance="Peanut", status=202, **fields):
        body = {"patient_id": self.patient_id, "substance": {"text": substance}, **fields}
        return self.send("allergies", body, status=status)

    def accept(self, submission_id, *extra):
        return ok("submission", "accept", "--clinic", self.id, submission_id, *extra)["submission"]

    def decline(self, submission_id, *extra):
        return ok("submission", "decline", "--clinic", self.id, submission_id, *extra)["submission"]


@pytest.fixture
def clinic(testapp, world, connected):
    return Clinic(testapp, world, connected)


@pytest.fixture
def recording_clinic(testapp, world):
    """The clinic every event assertion uses: events are recorded only while a clinic has a webhook
    endpoint or a connected organization with one (spec, Events rule 5), so the organization has one."""
    connected = world.connected()
    world.webhook(workspace_id=connected.workspace_id, mode="live")
    return Clinic(testapp, world, connected)
