"""Example (a): send an allergy, follow the submission to a clinician's decision, read the chart.

In your sandbox nobody reviews submissions, so the test helpers play the clinician. Run against a running
service (`scripts/serve`, then `clinicrecords demo` prints a test key):

    python examples/send_allergy.py --base-url http://localhost:6543 --key ehr_test_...
"""

import argparse
import sys
import uuid

import httpx
from clinicrecords_client import ApiError, Client


def run(api, decision="accept"):
    sandbox = api.connections()[0]["clinic_id"]
    clinic = api.clinic(sandbox)
    patient = next(clinic.patients.iterate(limit=1))
    print(f"sandbox clinic {sandbox}, patient {patient['id']}")

    submission = clinic.allergies.create({
        "patient_id": patient["id"], "substance": {"text": "Peanut"}, "category": ["food"],
        "criticality": "high", "type": "allergy", "client_reference": f"example-{uuid.uuid4()}",
    })
    print(f"sent: submission {submission['submission_id']} is {submission['review_status']}")

    if decision == "accept":
        api.test_helpers.accept_submission(sandbox, submission["submission_id"])
    else:
        api.test_helpers.decline_submission(sandbox, submission["submission_id"], reason="Not confirmed")
    decided = clinic.submissions.get(submission["submission_id"])
    print(f"decided: {decided['review_status']}")

    chart = [a for a in clinic.allergies.iterate(patient_id=patient["id"])
             if (a.get("substance") or {}).get("text") == "Peanut"]
    print(f"chart: {len(chart)} peanut allerg{'y' if len(chart) == 1 else 'ies'} for the patient")
    return decided, chart


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://localhost:6543")
    parser.add_argument("--key", required=True, help="a test key (ehr_test_...)")
    parser.add_argument("--decline", action="store_true", help="decline instead of accept")
    args = parser.parse_args(argv)
    if not args.key.startswith("ehr_test_"):
        # Checked before any call: a live key would put the allergy in a real clinic's review queue.
        parser.error("needs a test key (ehr_test_...): this example writes to your sandbox and has the test "
                     "helpers play the clinician, which only a sandbox allows")
    try:
        with Client(args.base_url, args.key) as api:
            run(api, "decline" if args.decline else "accept")
    except ApiError as error:
        print(f"failed: {error.code} {error.detail} (request {error.request_id})", file=sys.stderr)
        return 1
    except httpx.TransportError as error:
        print(f"failed: cannot reach {args.base_url} ({error or type(error).__name__}); is the service running?",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
