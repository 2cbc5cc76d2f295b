"""Every operation's curl sample (`x-codeSamples`) works as-is in a fresh sandbox: bash itself reads the
sample (quoting, `$VARIABLES`, `$(uuidgen)`), with `curl` standing in to hand its arguments to WebTest."""

import os
import subprocess
import urllib.parse
import uuid

from clinicrecords.api.openapi import document

# Prints curl's arguments NUL-separated instead of sending them; uuidgen may be absent where tests run.
_SHELL_PRELUDE = """curl() { printf '%s\\0' "$@"; }
uuidgen() { python3 -c 'import uuid; print(uuid.uuid4())'; }
"""


def _samples(registry):
    for path, methods in document(registry)["paths"].items():
        for method, operation in methods.items():
            [sample] = operation["x-codeSamples"]
            assert (sample["lang"], sample["label"]) == ("Shell", "curl"), f"{method} {path}"
            yield method.upper(), path, operation, sample["source"]


def _arguments(source, key, clinic_id):
    env = {"PATH": os.environ["PATH"], "CLINICRECORDS_URL": "http://localhost", "CLINICRECORDS_KEY": key,
           "CLINIC_ID": str(clinic_id)}
    run = subprocess.run(["bash", "-euc", _SHELL_PRELUDE + source], env=env, capture_output=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return run.stdout.decode().split("\0")[:-1]


def _as_request(arguments):
    """(method, url, headers, body) from the curl arguments the samples use."""
    method, url, headers, body = "GET", None, {}, None
    words = iter(arguments)
    for word in words:
        if word == "-X":
            method = next(words)
        elif word == "-H":
            name, _, value = next(words).partition(": ")
            headers[name] = value
        elif word == "-d":
            body = next(words).encode()
        elif word == "--data-urlencode":  # as curl: name=value, the value encoded, and a form's Content-Type
            name, _, value = next(words).partition("=")
            field = f"{name}={urllib.parse.quote_plus(value)}"
            body = field.encode() if body is None else body + b"&" + field.encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
            method = "POST" if method == "GET" else method
        else:
            assert url is None and word.startswith("http://localhost/v1/"), f"unexpected argument {word!r}"
            url = word
    return method, url, headers, body


# The samples that cannot succeed in a fresh sandbox, each of which must meet exactly this documented refusal
# (not a 400 or 500): every seeded item has stock or ledger history, and the API has no way to create an item
# without any; an export's status URL and files exist only once a kick-off has made them (their ids are the
# Content-Location and the manifest's urls), so no seed holds one.
REFUSED_AS_DOCUMENTED = {
    ("DELETE", "/v1/clinics/{clinic_id}/inventory/items/{item_id}"): (409, "item_has_stock"),
    ("GET", "/v1/clinics/{clinic_id}/fhir/export-jobs/{job_id}"): (404, "not_found"),
    ("DELETE", "/v1/clinics/{clinic_id}/fhir/export-jobs/{job_id}"): (404, "not_found"),
    ("GET", "/v1/clinics/{clinic_id}/fhir/export-files/{file_id}"): (404, "not_found"),
}


def _code(response):
    """A refusal's stable code: problem+json's `code`, or under the FHIR base the OperationOutcome's."""
    if response.json.get("resourceType") == "OperationOutcome":
        return response.json["issue"][0]["details"]["coding"][0]["code"]
    return response.json["code"]


def test_every_operation_has_a_curl_sample_that_succeeds_in_a_fresh_sandbox(world, testapp, registry):
    def fresh_sandbox():
        workspace_id, clinic_id = world.workspace()
        return clinic_id, world.key(workspace_id=workspace_id, mode="test")

    def fresh_own_clinic():
        clinic_id = world.clinic(seed=True)
        return clinic_id, world.key(clinic_id=clinic_id)

    # Reads share one sandbox (and one clinic for clinic-key-only reads); every write gets a fresh one, so
    # no sample depends on another having run first.
    shared = {False: fresh_sandbox(), True: fresh_own_clinic()}
    failures, count = [], 0
    for method, path, operation, source in _samples(registry):
        clinic_key_only = bool(operation.get("x-clinic-key-only"))
        if method == "GET":
            clinic_id, key = shared[clinic_key_only]
        else:
            clinic_id, key = fresh_own_clinic() if clinic_key_only else fresh_sandbox()
        sent_method, url, headers, body = _as_request(_arguments(source, key, clinic_id))
        assert sent_method == method, source
        if "Idempotency-Key" in headers:
            uuid.UUID(headers["Idempotency-Key"])  # `$(uuidgen)` ran
        response = testapp.request(url, method=method, headers=headers, body=body, expect_errors=True)
        count += 1
        refusal = REFUSED_AS_DOCUMENTED.get((method, path))
        if refusal is not None:
            assert (response.status_int, _code(response)) == refusal, response.text
            assert _code(response) in operation["responses"][str(refusal[0])]["description"]
        elif response.status_int >= 400:
            failures.append(f"{method} {path}: {response.status_int} {response.text[:300]}\n{source}")
    assert count > 50
    assert not failures, "\n\n".join(failures)
