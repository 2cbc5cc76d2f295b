"""A curl line per operation (`x-codeSamples`), built from the document's own parameters and body examples so
it works as-is in a fresh sandbox (tests/reference/test_code_samples.py runs every one).

The samples read three shell variables, set as the reference's introduction says (`curl_setup`). The
address there is the one the document is served from (`served_setup`); the committed copy, built with no
request, names an example address instead."""

import json
import re
import shlex

from clinicrecords.api.idempotency import HEADER as IDEMPOTENCY_HEADER
from clinicrecords.api.representations import FORM, JSON

BASE_URL, KEY, CLINIC_ID = "$CLINICRECORDS_URL", "$CLINICRECORDS_KEY", "$CLINIC_ID"
NEW_IDEMPOTENCY_KEY = "$(uuidgen)"
# The committed document's address; each served copy names its own.
EXAMPLE_BASE_URL = "https://api.example.org"
# An address fit to print in the reference as it is: scheme, host (a name, IPv4 or [IPv6]), port, path.
_PRINTABLE_URL = re.compile(r"https?://(?:[A-Za-z0-9.\-]+|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?(?:/[A-Za-z0-9._~\-/]*)?")


def curl_setup(base_url=EXAMPLE_BASE_URL):
    return f"""```sh
export CLINICRECORDS_URL={base_url}   # this API's address
export CLINICRECORDS_KEY=ehr_test_...            # a test key: it reaches your sandbox
export CLINIC_ID=...   # your sandbox: the clinic_id of the "sandbox": true entry in GET /v1/connections
```

Each operation's curl sample then works as-is in your sandbox (`uuidgen` makes a fresh Idempotency-Key).
Record ids in the samples are the sandbox seed's, the same in every sandbox. Routes marked
`x-clinic-key-only` need a clinic's own key and that clinic's id instead."""


def served_setup(description, base_url):
    """The introduction `description` with its curl set-up naming `base_url`, the address the document is served
    from (`api.base_url`, or the request's own host where that is unset). An address that is not a plain URL
    (a forged Host header) leaves the example address."""
    if not _PRINTABLE_URL.fullmatch(base_url):
        return description
    return description.replace(curl_setup(), curl_setup(base_url), 1)


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
    # A literal `$` (the FHIR operations: `/fhir/$export`) is escaped: the URL is in double quotes.
    return BASE_URL + path.replace("$", "\\$").format(**values)


def curl(method, path, operation):
    """The sample's shell text: one command, continued over lines with `\\`."""
    lines = [f'curl -X {method.upper()} "{_url(path, operation["parameters"])}"']
    if operation.get("security") != []:
        lines.append(f'-H "Authorization: Bearer {KEY}"')
    for parameter in operation["parameters"]:
        if parameter["in"] == "header" and parameter.get("required") and "example" in parameter:
            lines.append(f'-H "{parameter["name"]}: {parameter["example"]}"')
    if any(p["in"] == "header" and p["name"] == IDEMPOTENCY_HEADER for p in operation["parameters"]):
        lines.append(f'-H "{IDEMPOTENCY_HEADER}: {NEW_IDEMPOTENCY_KEY}"')
    content = operation.get("requestBody", {}).get("content", {})
    if JSON in content:
        lines.append(f'-H "Content-Type: {JSON}"')
        lines.append(f"-d {shlex.quote(json.dumps(content[JSON]['example'], ensure_ascii=False))}")
    if FORM in content:  # curl's --data-urlencode sends the form's Content-Type itself
        lines += [f"--data-urlencode {shlex.quote(f'{name}={value}')}"
                  for name, value in content[FORM]["example"].items()]
    return " \\\n  ".join(lines)


def code_samples(method, path, operation):
    return [{"lang": "Shell", "label": "curl", "source": curl(method, path, operation)}]
