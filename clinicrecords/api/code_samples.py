"""A curl line per operation (`x-codeSamples`), built from the document's own parameters and body examples so
it works as-is in a fresh sandbox (tests/reference/test_code_samples.py runs every one).

The samples read three shell variables, set as the reference's introduction says (CURL_SETUP)."""

import json
import shlex

from clinicrecords.api.idempotency import HEADER as IDEMPOTENCY_HEADER
from clinicrecords.api.representations import JSON

BASE_URL, KEY, CLINIC_ID = "$CLINICRECORDS_URL", "$CLINICRECORDS_KEY", "$CLINIC_ID"
NEW_IDEMPOTENCY_KEY = "$(uuidgen)"

CURL_SETUP = """```sh
export CLINICRECORDS_URL=http://localhost:6543   # where scripts/serve listens
export CLINICRECORDS_KEY=ehr_test_...            # a test key: it reaches your sandbox
export CLINIC_ID=...   # your sandbox: the clinic_id of the "sandbox": true entry in GET /v1/connections
```

Each operation's curl sample then works as-is in your sandbox (`uuidgen` makes a fresh Idempotency-Key).
Record ids in the samples are the sandbox seed's, the same in every sandbox. Routes marked
`x-clinic-key-only` need a clinic's own key and that clinic's id instead."""


def _url(path, parameters):
    values = {}
    for parameter in parameters:
        if parameter["in"] != "path":
            continue
        if parameter["name"] == "clinic_id":
            values["clinic_id"] = CLINIC_ID
        elif "example" in parameter:
            values[parameter["name"]] = parameter["example"]
        else:
            raise ValueError(
                f"{path}: declare sandbox_example_id on the item resource of {{{parameter['name']}}}")
    return BASE_URL + path.format(**values)


def curl(method, path, operation):
    """The sample's shell text: one command, continued over lines with `\\`."""
    lines = [f'curl -X {method.upper()} "{_url(path, operation["parameters"])}"']
    if operation.get("security") != []:
        lines.append(f'-H "Authorization: Bearer {KEY}"')
    if any(p["in"] == "header" and p["name"] == IDEMPOTENCY_HEADER for p in operation["parameters"]):
        lines.append(f'-H "{IDEMPOTENCY_HEADER}: {NEW_IDEMPOTENCY_KEY}"')
    body = operation.get("requestBody", {}).get("content", {}).get(JSON)
    if body is not None:
        lines.append(f'-H "Content-Type: {JSON}"')
        lines.append(f"-d {shlex.quote(json.dumps(body['example'], ensure_ascii=False))}")
    return " \\\n  ".join(lines)


def code_samples(method, path, operation):
    return [{"lang": "Shell", "label": "curl", "source": curl(method, path, operation)}]
