"""The HTTP core (auth, idempotency, retries, problems) and a typed method for every route on top of it.

`OPERATIONS` maps each operationId of the service's OpenAPI document to the method that calls it."""

import json as json_module
import random
import time
import uuid
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from clinicrecords_client.errors import from_response

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
FHIR_JSON = "application/fhir+json"

Json = dict[str, Any]
Id = uuid.UUID | str


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
        self.last_manifest = None  # the manifest of the last `export` read to its end
        self.last_outcomes = []  # the OperationOutcomes of its error files
        self.test_helpers = TestHelpers(self)
        self.listings = Listings(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._http.close()

    # -- the core -------------------------------------------------------------------------------------------
    def request(self, method, path, *, json=None, params=None, idempotency_key=None, accept=None):
        """The decoded JSON answer, or a typed ApiError. Writes carry one Idempotency-Key over all attempts,
        so a retry after a lost answer replays the first result instead of writing twice."""
        response = self._send(method, path, json=json, params=params, idempotency_key=idempotency_key,
                              accept=accept)
        return response.json() if response.content else None

    def _send(self, method, path, *, json=None, params=None, idempotency_key=None, accept=None, headers=None,
              data=None):
        headers = {**({"Accept": accept} if accept else {}), **(headers or {})}
        if method in WRITE_METHODS:
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        elif idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        attempt = 0
        while True:
            try:
                response = self._http.request(method, path, json=json, params=params, headers=headers, data=data)
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
            return response

    def _pause(self, attempt, retry_after):
        if retry_after is None:
            retry_after = min(self.max_backoff, self.backoff * 2 ** attempt) * (0.5 + random.random() / 2)
        self._sleep(min(retry_after, self.max_backoff))

    def paginate(self, path, params=None) -> Iterator[Json]:
        """Every item of a cursor-paged list, following `next_cursor`."""
        params = dict(params or {})
        while True:
            page = self.request("GET", path, params=params)
            yield from page["data"]
            if not page.get("has_more") or not page.get("next_cursor"):
                return
            params["starting_after"] = page["next_cursor"]

    # -- keys, clinics, the reference ------------------------------------------------------------------------
    def me(self) -> Json:
        return self.request("GET", "/v1/me")["data"]

    def connections(self, **params) -> list[Json]:
        """Every clinic the key reaches now, following the list's pages (`limit` sets the page size)."""
        return list(self.paginate("/v1/connections", params))

    def clinic(self, clinic_id: Id) -> "Clinic":
        return Clinic(self, clinic_id)

    def openapi(self) -> Json:
        """The service's OpenAPI document."""
        return self.request("GET", "/v1/openapi.json")

    def reference_page(self) -> str:
        """The browsable reference (HTML)."""
        return self._send("GET", "/v1/docs", accept="text/html").text

    def reference_script(self) -> str:
        """The reference page's script (the vendored Redoc bundle)."""
        return self._send("GET", "/v1/docs/redoc.standalone.js", accept="*/*").text

    def events_page(self, clinic_id: Id, after_seq: int = 0, limit: int = 50) -> Json:
        """One page of the change feed: `{"events": [...], "next_after": n}`."""
        return self.request("GET", f"/v1/clinics/{clinic_id}/events",
                            params={"after_seq": after_seq, "limit": limit})

    def events(self, clinic_id, after_seq=0, limit=100, seen=None) -> Iterator[Json]:
        """The change feed from `after_seq` until caught up, each seq once (also across calls sharing `seen`).
        Resume later with the last event's `seq`."""
        seen = set() if seen is None else seen
        while True:
            page = self.events_page(clinic_id, after_seq, limit)
            for event in page["events"]:
                if event["seq"] not in seen:
                    seen.add(event["seq"])
                    yield event
            next_after = page.get("next_after")
            if not page["events"] or next_after is None or next_after <= after_seq:
                return
            after_seq = next_after


    def export(self, clinic_id: Id, types: list[str] | None = None, since: str | None = None, *,
               patients: bool = False, lenient: bool = False) -> Iterator[Json]:
        """A Bulk Data export of the clinic, resource by resource: kicks it off (every type the key reads, or
        `types`; `since`: a FHIR instant; `patients=True`: Patient/$export), polls as `Retry-After` asks, then
        reads every output file in the manifest's order. `last_manifest` holds the manifest once it is read
        (its `transactionTime` is the `since` of the next export), and `last_outcomes` the OperationOutcomes of
        its `error` files once every output is read: severity `warning` for each parameter `lenient=True` had
        ignored, `error` for a record that could not be exported. Failures raise ApiError subclasses, whose `code`
        is the one the OperationOutcome carries."""
        fhir = self.clinic(clinic_id).fhir
        job_id = fhir.kick_off(types, since, patients=patients, lenient=lenient)
        while True:
            manifest, wait = fhir.poll_once(job_id)
            if manifest is not None:
                break
            self._sleep(wait)
        self.last_manifest = manifest
        self.last_outcomes = []
        for entry in manifest["output"]:
            yield from fhir.download(entry["url"].rsplit("/", 1)[-1])
        for entry in manifest["error"]:
            self.last_outcomes.extend(fhir.download(entry["url"].rsplit("/", 1)[-1]))


class Listings:
    """`/v1/listings`: pharmacies listed to the caller's organization and the network stock search."""

    def __init__(self, client):
        self._client = client

    def pharmacies(self, **params) -> Json:
        """One page of listed pharmacies (`limit`, `starting_after`)."""
        return self._client.request("GET", "/v1/listings/pharmacies", params=params)

    def iterate_pharmacies(self, **params) -> Iterator[Json]:
        return self._client.paginate("/v1/listings/pharmacies", params)

    def search(self, q: str | None = None, *, gtin: str | None = None, regulator_number: str | None = None,
               near: Json | None = None, limit: int | None = None, body: Json | None = None) -> list[Json]:
        """Result entries (bands, never quantities). Give `q` (name text), or a code, or a whole `body`."""
        if body is None:
            given = (("q", q), ("gtin", gtin), ("regulator_number", regulator_number))
            item = {name: value for name, value in given if value is not None}
            body = {"item": item}
            if near is not None:
                body["near"] = near
            if limit is not None:
                body["limit"] = limit
        return self._client.request("POST", "/v1/listings/search", json=body)["data"]


# -- collections ---------------------------------------------------------------------------------------------
class _Collection:
    def __init__(self, client, path):
        self._client = client
        self.path = path


class _List(_Collection):
    def list(self, **params) -> Json:
        """One page: `{data, has_more, next_cursor}`."""
        return self._client.request("GET", self.path, params=params)

    def iterate(self, **params) -> Iterator[Json]:
        """Every record, page after page."""
        return self._client.paginate(self.path, params)


class _Get(_Collection):
    def get(self, record_id: Id, fhir: bool = False) -> Json:
        """The record (`fhir=True`: the FHIR R4 resource, where the route offers one)."""
        if fhir:
            return self._client.request("GET", f"{self.path}/{record_id}", accept="application/fhir+json")
        return self._client.request("GET", f"{self.path}/{record_id}")["data"]


class _Create(_Collection):
    def create(self, body: Json, idempotency_key: str | None = None) -> Json:
        return self._client.request("POST", self.path, json=body, idempotency_key=idempotency_key)["data"]


class _Update(_Collection):
    def update(self, record_id: Id, body: Json, idempotency_key: str | None = None) -> Json:
        return self._client.request("PATCH", f"{self.path}/{record_id}", json=body,
                                    idempotency_key=idempotency_key)["data"]


class _Delete(_Collection):
    def delete(self, record_id: Id, idempotency_key: str | None = None) -> None:
        self._client.request("DELETE", f"{self.path}/{record_id}", idempotency_key=idempotency_key)


class Allergies(_List, _Get, _Create, _Update):
    """create: send for review (a submission); update: propose a change (a new submission)."""


class Conditions(_List, _Get, _Create, _Update):
    pass


class MedicationStatements(_List, _Get, _Create, _Update):
    pass


class Referrals(_List, _Get, _Create, _Update):
    pass


class Patients(_List, _Get, _Create, _Update):
    pass


class Encounters(_List, _Get, _Create, _Update):
    """create opens a draft; update changes type, start, end or reason of a draft this app opened."""


class Coverages(_List, _Get, _Create, _Update):
    pass


class CareProviders(_List, _Get, _Create, _Update, _Delete):
    pass


class Submissions(_List, _Get):
    def change(self, submission_id: Id, body: Json, idempotency_key: str | None = None) -> Json:
        """Change a pending submission: `body` is merged into what was sent (null removes a field) and
        validated as a new send; a decided one raises Conflict (submission_not_pending)."""
        return self._client.request("PATCH", f"{self.path}/{submission_id}", json=body,
                                    idempotency_key=idempotency_key)["data"]

    def withdraw(self, submission_id: Id, idempotency_key: str | None = None) -> Json:
        """Withdraw a pending submission: the submission, rejected with the reason `withdrawn`."""
        return self._client.request("DELETE", f"{self.path}/{submission_id}",
                                    idempotency_key=idempotency_key)["data"]


class Prescriptions(_List, _Get):
    pass


class Providers(_List, _Get):
    pass


class Payers(_List, _Get):
    pass


class DispensingFlags(_List):
    pass


class Appointments(_List, _Get, _Create):
    """create books a slot."""

    def cancel(self, appointment_id: Id, idempotency_key: str | None = None) -> Json:
        return self._client.request("POST", f"{self.path}/{appointment_id}/cancel",
                                    idempotency_key=idempotency_key)["data"]


class InventoryItems(_List, _Get, _Delete):
    def movements(self, item_id: Id, **params) -> Json:
        """One page of the item's stock ledger, oldest first."""
        return self._client.request("GET", f"{self.path}/{item_id}/movements", params=params)

    def iterate_movements(self, item_id: Id, **params) -> Iterator[Json]:
        return self._client.paginate(f"{self.path}/{item_id}/movements", params)

    def record_movement(self, item_id: Id, body: Json, idempotency_key: str | None = None) -> Json:
        return self._client.request("POST", f"{self.path}/{item_id}/movements", json=body,
                                    idempotency_key=idempotency_key)["data"]


class StockBatches(_Collection):
    def create(self, body: Json, idempotency_key: str | None = None) -> Json:
        """Report the till's stock snapshot."""
        return self._client.request("POST", self.path, json=body, idempotency_key=idempotency_key)["data"]


class PaymentAdvices(_Collection):
    def create(self, body: Json, idempotency_key: str | None = None) -> Json:
        """The whole answer: `{data, idempotent_replay?}` (a replay says so)."""
        return self._client.request("POST", self.path, json=body, idempotency_key=idempotency_key)


class PatientImports(_Get):
    def start(self, data: list | str | Json, input_format: str = "json_array") -> Json:
        """The finished job (succeeded, needs_review or failed; validating past the service's wait bound).
        The service deduplicates identical content itself (`already_imported`), so no Idempotency-Key is
        needed to retry."""
        body = {"input_format": input_format, "data": data}
        return self._client.request("POST", self.path, json=body)["data"]

    def create(self, body: Json) -> Json:
        return self._client.request("POST", self.path, json=body)["data"]

    def run_valid_rows(self, import_id: Id) -> Json:
        """runValidPatientImportRows: write only the rows that passed validation."""
        return self._client.request("POST", f"{self.path}/{import_id}/run-valid-rows")["data"]


class BulkExport(_Collection):
    """The clinic's FHIR base (`/v1/clinics/{id}/fhir`): Bulk Data export, step by step (`Client.export` runs
    the whole flow)."""

    KICKOFF = {"Accept": "application/fhir+json", "Prefer": "respond-async"}

    def metadata(self) -> Json:
        """The base's CapabilityStatement."""
        return self._client.request("GET", f"{self.path}/metadata", accept="application/fhir+json")

    def kick_off(self, types: list[str] | None = None, since: str | None = None, *, patients: bool = False,
                 lenient: bool = False, idempotency_key: str | None = None) -> str | None:
        """Start an export; its job id (the last segment of the status URL, `Content-Location`)."""
        params = {}
        if types:
            params["_type"] = ",".join(types)
        if since:
            params["_since"] = since
        headers = dict(self.KICKOFF)
        if lenient:
            headers["Prefer"] = "respond-async, handling=lenient"
        path = f"{self.path}/Patient/$export" if patients else f"{self.path}/$export"
        response = self._client._send("GET", path, params=params, headers=headers, idempotency_key=idempotency_key)
        location = response.headers.get("Content-Location")
        return location.rsplit("/", 1)[-1] if location else None

    def kick_off_patients(self, types: list[str] | None = None, since: str | None = None, **kwargs) -> str | None:
        """Patient/$export: the patient compartment's types only."""
        return self.kick_off(types, since, patients=True, **kwargs)

    def poll_once(self, job_id: Id) -> tuple[Json | None, float]:
        """(the manifest, 0) once the export is complete, else (None, seconds to wait as Retry-After says)."""
        response = self._client._send("GET", f"{self.path}/export-jobs/{job_id}")
        if response.status_code == 202:
            return None, _retry_after(response) or 1.0
        return response.json(), 0.0

    def poll(self, job_id: Id) -> Json | None:
        """The manifest once the export is complete, else None (still running)."""
        return self.poll_once(job_id)[0]

    def cancel(self, job_id: Id, idempotency_key: str | None = None) -> None:
        """Cancel the export and remove its files."""
        self._client._send("DELETE", f"{self.path}/export-jobs/{job_id}", idempotency_key=idempotency_key)

    def read(self, fhir_type: str, resource_id: Id) -> Json:
        """FHIR read: one resource of an exported type (`Patient`, `Condition`, ...), the same JSON as its export
        line; `read_<type>` methods name each type."""
        return self._client.request("GET", f"{self.path}/{fhir_type}/{resource_id}", accept="application/fhir+json")

    def search(self, fhir_type: str, params: dict | list | None = None, *, lenient: bool = False,
               form: bool = False) -> Json:
        """FHIR search: the first page, a searchset Bundle (`next_page` follows its next link; `search_all`
        every page). `form=True` sends the parameters as a form body (POST _search), so names stay out of URLs;
        `lenient=True` has what the base does not offer left out rather than refused. `search_<type>` and
        `search_<type>_by_form` methods name each type."""
        headers = {"Accept": FHIR_JSON, **({"Prefer": "handling=lenient"} if lenient else {})}
        if form:
            return self._client._send("POST", f"{self.path}/{fhir_type}/_search", data=params or {},
                                      headers=headers).json()
        return self._client._send("GET", f"{self.path}/{fhir_type}", params=params, headers=headers).json()

    def next_page(self, bundle: Json) -> Json | None:
        """The page after `bundle` (its `next` link, as given), or None after the last."""
        for link in bundle.get("link", []):
            if link.get("relation") == "next":
                return self._client._send("GET", link["url"], headers={"Accept": FHIR_JSON}).json()
        return None

    def search_all(self, fhir_type: str, params: dict | list | None = None, **options) -> Iterator[Json]:
        """Every resource a search finds, page after page."""
        bundle = self.search(fhir_type, params, **options)
        while bundle is not None:
            yield from (entry["resource"] for entry in bundle.get("entry", [])
                        if entry.get("search", {}).get("mode") == "match")
            bundle = self.next_page(bundle)

    def download(self, file_id: Id) -> Iterator[Json]:
        """One file's resources, line by line, streamed."""
        with self._client._http.stream("GET", f"{self.path}/export-files/{file_id}",
                                       headers={"Accept": "application/fhir+ndjson"}) as response:
            if response.status_code >= 400:
                response.read()
                raise from_response(response)
            for line in response.iter_lines():
                if line.strip():
                    yield json_module.loads(line)


def _fhir_reader(fhir_type):
    def read(self, resource_id: Id) -> Json:
        return self.read(fhir_type, resource_id)

    read.__name__ = read.__qualname__ = f"read_{_snake(fhir_type)}"
    read.__doc__ = f"FHIR read of one {fhir_type}."
    return read


def _fhir_searchers(fhir_type):
    def search(self, params: dict | list | None = None, *, lenient: bool = False) -> Json:
        return self.search(fhir_type, params, lenient=lenient)

    def search_by_form(self, params: dict | list | None = None, *, lenient: bool = False) -> Json:
        return self.search(fhir_type, params, lenient=lenient, form=True)

    name = f"search_{_snake(fhir_type)}"
    search.__name__ = search.__qualname__ = name
    search.__doc__ = f"FHIR search of {fhir_type}: the first page (a searchset Bundle)."
    search_by_form.__name__ = search_by_form.__qualname__ = f"{name}_by_form"
    search_by_form.__doc__ = f"FHIR search of {fhir_type} with the parameters in a form body (POST _search)."
    return search, search_by_form


def _snake(name):
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


FHIR_TYPES = ("Patient", "AllergyIntolerance", "Condition", "MedicationStatement", "ServiceRequest",
              "MedicationRequest", "Encounter", "Coverage", "Practitioner", "PractitionerRole", "Organization")
for _fhir_type in FHIR_TYPES:
    setattr(BulkExport, f"read_{_snake(_fhir_type)}", _fhir_reader(_fhir_type))
    for _searcher in _fhir_searchers(_fhir_type):
        setattr(BulkExport, _searcher.__name__, _searcher)


class Listing(_Collection):
    """A connected pharmacy's listing."""

    def profile(self) -> Json:
        return self._client.request("GET", f"{self.path}/profile")["data"]

    def items(self, **params) -> Json:
        """One page of listed items with their bands."""
        return self._client.request("GET", f"{self.path}/items", params=params)

    def iterate_items(self, **params) -> Iterator[Json]:
        return self._client.paginate(f"{self.path}/items", params)


_COLLECTIONS = {
    "allergies": (Allergies, "allergies"), "conditions": (Conditions, "conditions"),
    "medication_statements": (MedicationStatements, "medication-statements"),
    "referrals": (Referrals, "referrals"), "patients": (Patients, "patients"),
    "encounters": (Encounters, "encounters"), "coverages": (Coverages, "coverages"),
    "care_providers": (CareProviders, "care-providers"), "submissions": (Submissions, "submissions"),
    "prescriptions": (Prescriptions, "prescriptions"), "providers": (Providers, "providers"),
    "payers": (Payers, "payers"), "appointments": (Appointments, "appointments"),
    "inventory_items": (InventoryItems, "inventory/items"),
    "stock_batches": (StockBatches, "inventory/stock-batches"),
    "dispensing_flags": (DispensingFlags, "dispensing/flags"),
    "patient_imports": (PatientImports, "patient-imports"),
    "payment_advices": (PaymentAdvices, "insurance/payment-advices"), "listing": (Listing, "listing"),
    "fhir": (BulkExport, "fhir"),
}


class Clinic:
    """`client.clinic(id).allergies.create({...})`, `.patients.iterate()`, ..."""

    def __init__(self, client, clinic_id):
        self._client = client
        self.clinic_id = clinic_id
        for attribute, (cls, segment) in _COLLECTIONS.items():
            setattr(self, attribute, cls(client, f"/v1/clinics/{clinic_id}/{segment}"))

    def events(self, after_seq=0, **kwargs) -> Iterator[Json]:
        return self._client.events(self.clinic_id, after_seq, **kwargs)

    def events_page(self, after_seq: int = 0, limit: int = 50) -> Json:
        return self._client.events_page(self.clinic_id, after_seq, limit)


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


# operationId (docs/openapi.json) -> its method, as an attribute path from a Client
# ("clinic." stands for client.clinic(clinic_id)).
OPERATIONS = {
    "me": "me", "connections": "connections", "serve_document": "openapi", "reference_page": "reference_page",
    "redoc_bundle": "reference_script", "read_feed": "clinic.events_page",
    "listed_pharmacies": "listings.pharmacies", "search_listings": "listings.search",
    "list_allergies": "clinic.allergies.list", "send_allergy": "clinic.allergies.create",
    "get_allergy": "clinic.allergies.get", "change_allergy": "clinic.allergies.update",
    "list_conditions": "clinic.conditions.list", "send_condition": "clinic.conditions.create",
    "get_condition": "clinic.conditions.get", "change_condition": "clinic.conditions.update",
    "list_medication_statements": "clinic.medication_statements.list",
    "send_medication_statement": "clinic.medication_statements.create",
    "get_medication_statement": "clinic.medication_statements.get",
    "change_medication_statement": "clinic.medication_statements.update",
    "list_referrals": "clinic.referrals.list", "send_referral": "clinic.referrals.create",
    "get_referral": "clinic.referrals.get", "change_referral": "clinic.referrals.update",
    "list_patients": "clinic.patients.list", "create_patient": "clinic.patients.create",
    "get_patient": "clinic.patients.get", "update_patient": "clinic.patients.update",
    "list_encounters": "clinic.encounters.list", "open_encounter": "clinic.encounters.create",
    "get_encounter": "clinic.encounters.get", "update_encounter": "clinic.encounters.update",
    "list_coverages": "clinic.coverages.list", "create_coverage": "clinic.coverages.create",
    "get_coverage": "clinic.coverages.get", "update_coverage": "clinic.coverages.update",
    "list_care_providers": "clinic.care_providers.list", "add_care_provider": "clinic.care_providers.create",
    "get_care_provider": "clinic.care_providers.get", "update_care_provider": "clinic.care_providers.update",
    "delete_care_provider": "clinic.care_providers.delete",
    "list_submissions": "clinic.submissions.list", "get_submission": "clinic.submissions.get",
    "change_submission": "clinic.submissions.change", "withdraw_submission": "clinic.submissions.withdraw",
    "list_prescriptions": "clinic.prescriptions.list", "get_prescription": "clinic.prescriptions.get",
    "list_providers": "clinic.providers.list", "get_provider": "clinic.providers.get",
    "list_payers": "clinic.payers.list", "get_payer": "clinic.payers.get",
    "list_dispensing_flags": "clinic.dispensing_flags.list",
    "list_appointments": "clinic.appointments.list", "book_appointment": "clinic.appointments.create",
    "get_appointment": "clinic.appointments.get", "cancel_appointment": "clinic.appointments.cancel",
    "list_items": "clinic.inventory_items.list", "get_item": "clinic.inventory_items.get",
    "delete_item": "clinic.inventory_items.delete", "list_movements": "clinic.inventory_items.movements",
    "record_movement": "clinic.inventory_items.record_movement", "post_batch": "clinic.stock_batches.create",
    "create_payment_advice": "clinic.payment_advices.create",
    "start_import": "clinic.patient_imports.start", "get_import": "clinic.patient_imports.get",
    "run_valid_rows": "clinic.patient_imports.run_valid_rows",
    "listing_profile": "clinic.listing.profile", "listing_items": "clinic.listing.items",
    "accept_submission": "test_helpers.accept_submission",
    "decline_submission": "test_helpers.decline_submission",
    "review_item": "test_helpers.review_item", "act_on_referral": "test_helpers.act_on_referral",
    "touch_encounter": "test_helpers.touch_encounter", "sign_encounter": "test_helpers.sign_encounter",
    "confirm_coverage": "test_helpers.confirm_coverage",
    "activate_coverage": "test_helpers.activate_coverage",
    "set_stock": "test_helpers.set_stock", "report_till": "test_helpers.till_report",
    "stale_till": "test_helpers.till_stale", "reset": "test_helpers.reset",
    "metadata": "clinic.fhir.metadata", "export_clinic": "clinic.fhir.kick_off",
    "export_patients": "clinic.fhir.kick_off_patients", "poll_export": "clinic.fhir.poll",
    "cancel_export": "clinic.fhir.cancel", "download_file": "clinic.fhir.download",
    **{f"fhir_read_{_snake(name)}": f"clinic.fhir.read_{_snake(name)}" for name in FHIR_TYPES},
    **{f"fhir_search_{_snake(name)}{form}": f"clinic.fhir.search_{_snake(name)}{form}"
       for name in FHIR_TYPES for form in ("", "_by_form")},
}
