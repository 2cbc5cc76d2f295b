"""The HTTP core (auth, idempotency, retries, problems) and the resources on top of it."""

import random
import time
import uuid
from collections.abc import Iterator
from email.utils import parsedate_to_datetime

import httpx

from clinicrecords_client.errors import from_response

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})


def _retry_after(response):
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


class Client:
    """`Client(base_url, key)`; `transport=` (e.g. `httpx.WSGITransport(app)`) for tests."""

    def __init__(self, base_url, key, *, max_retries=3, backoff=0.5, max_backoff=20.0, timeout=30.0,
                 transport=None, sleep=time.sleep):
        self._http = httpx.Client(base_url=base_url, timeout=timeout, transport=transport,
                                  headers={"Authorization": f"Bearer {key}", "Accept": "application/json"})
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._sleep = sleep
        self.test_helpers = TestHelpers(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._http.close()

    # -- the core -------------------------------------------------------------------------------------------
    def request(self, method, path, *, json=None, params=None, idempotency_key=None):
        """The decoded JSON answer, or a typed ApiError. Writes carry one Idempotency-Key over all attempts,
        so a retry after a lost answer replays the first result instead of writing twice."""
        headers = {}
        if method in WRITE_METHODS:
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        attempt = 0
        while True:
            try:
                response = self._http.request(method, path, json=json, params=params, headers=headers)
            except httpx.TransportError:
                if attempt >= self.max_retries:
                    raise
                self._pause(attempt, None)
                attempt += 1
                continue
            if response.status_code in RETRY_STATUSES and attempt < self.max_retries:
                self._pause(attempt, _retry_after(response))
                attempt += 1
                continue
            if response.status_code >= 400:
                raise from_response(response)
            return response.json() if response.content else None

    def _pause(self, attempt, retry_after):
        if retry_after is None:
            retry_after = min(self.max_backoff, self.backoff * 2 ** attempt) * (0.5 + random.random() / 2)
        self._sleep(min(retry_after, self.max_backoff))

    def paginate(self, path, params=None) -> Iterator[dict]:
        """Every item of a cursor-paged list, following `next_cursor`."""
        params = dict(params or {})
        while True:
            page = self.request("GET", path, params=params)
            yield from page["data"]
            if not page.get("has_more") or not page.get("next_cursor"):
                return
            params["starting_after"] = page["next_cursor"]

    # -- keys, clinics ----------------------------------------------------------------------------------------
    def me(self):
        return self.request("GET", "/v1/me")["data"]

    def connections(self):
        return self.request("GET", "/v1/connections")["data"]

    def clinic(self, clinic_id):
        return Clinic(self, clinic_id)

    def events(self, clinic_id, after_seq=0, limit=100, seen=None) -> Iterator[dict]:
        """The change feed from `after_seq` until caught up, each seq once (also across calls sharing `seen`).
        Resume later with the last event's `seq`."""
        seen = set() if seen is None else seen
        while True:
            page = self.request("GET", f"/v1/clinics/{clinic_id}/events",
                                params={"after_seq": after_seq, "limit": limit})
            for event in page["events"]:
                if event["seq"] not in seen:
                    seen.add(event["seq"])
                    yield event
            next_after = page.get("next_after")
            if not page["events"] or next_after is None or next_after <= after_seq:
                return
            after_seq = next_after


class CollectionApi:
    """A clinic's collection: list (one page), iterate (all pages), get, create, update, delete."""

    def __init__(self, client, path):
        self._client = client
        self.path = path

    def list(self, **params):
        return self._client.request("GET", self.path, params=params)

    def iterate(self, **params):
        return self._client.paginate(self.path, params)

    def get(self, record_id):
        return self._client.request("GET", f"{self.path}/{record_id}")["data"]

    def create(self, body, idempotency_key=None):
        return self._client.request("POST", self.path, json=body, idempotency_key=idempotency_key)["data"]

    def update(self, record_id, body, idempotency_key=None):
        return self._client.request("PATCH", f"{self.path}/{record_id}", json=body,
                                    idempotency_key=idempotency_key)["data"]

    def delete(self, record_id):
        return self._client.request("DELETE", f"{self.path}/{record_id}")


_COLLECTIONS = {
    "allergies": "allergies", "conditions": "conditions", "medication_statements": "medication-statements",
    "referrals": "referrals", "patients": "patients", "encounters": "encounters", "coverages": "coverages",
    "care_providers": "care-providers", "submissions": "submissions", "prescriptions": "prescriptions",
    "providers": "providers", "payers": "payers", "inventory_items": "inventory/items",
    "dispensing_flags": "dispensing/flags", "patient_imports": "patient-imports",
}


class Clinic:
    """`client.clinic(id).allergies.create({...})`, `.patients.iterate()`, ..."""

    def __init__(self, client, clinic_id):
        self._client = client
        self.clinic_id = clinic_id
        for attribute, segment in _COLLECTIONS.items():
            setattr(self, attribute, CollectionApi(client, f"/v1/clinics/{clinic_id}/{segment}"))

    def events(self, after_seq=0, **kwargs):
        return self._client.events(self.clinic_id, after_seq, **kwargs)


class TestHelpers:
    """Sandbox test helpers (a test key on its own sandbox only)."""

    __test__ = False

    def __init__(self, client):
        self._client = client

    def _post(self, clinic_id, helper, body=None):
        return self._client.request("POST", f"/v1/test_helpers/clinics/{clinic_id}/{helper}",
                                    json=body or {})["data"]["result"]

    def accept_submission(self, clinic_id, submission_id):
        return self._post(clinic_id, "submissions/accept", {"submission_id": str(submission_id)})

    def decline_submission(self, clinic_id, submission_id, reason=None):
        return self._post(clinic_id, "submissions/decline", {"submission_id": str(submission_id),
                                                             "reason": reason})

    def review_item(self, clinic_id, kind, item_id):
        return self._post(clinic_id, "items/review", {"kind": kind, "item_id": str(item_id)})

    def act_on_referral(self, clinic_id, referral_id, status, reason=None):
        return self._post(clinic_id, "referrals/act", {"referral_id": str(referral_id), "status": status,
                                                       "reason": reason})

    def touch_encounter(self, clinic_id, encounter_id):
        return self._post(clinic_id, "encounters/touch", {"encounter_id": str(encounter_id)})

    def sign_encounter(self, clinic_id, encounter_id):
        return self._post(clinic_id, "encounters/sign", {"encounter_id": str(encounter_id)})

    def confirm_coverage(self, clinic_id, coverage_id):
        return self._post(clinic_id, "coverages/confirm", {"coverage_id": str(coverage_id)})

    def activate_coverage(self, clinic_id, coverage_id):
        return self._post(clinic_id, "coverages/activate", {"coverage_id": str(coverage_id)})

    def set_stock(self, clinic_id, item_id, quantity):
        return self._post(clinic_id, "stock/set", {"item_id": str(item_id), "quantity": quantity})

    def till_report(self, clinic_id):
        return self._post(clinic_id, "till/report")

    def till_stale(self, clinic_id):
        return self._post(clinic_id, "till/stale")

    def reset(self, clinic_id):
        return self._post(clinic_id, "reset")
