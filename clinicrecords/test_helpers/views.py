"""The helpers: a staff action each, on the caller's sandbox clinic, answered as the operator command's output."""

from pyramid.view import view_config

from clinicrecords.access.permissions import TEST_HELPERS
from clinicrecords.api.representations import render_one
from clinicrecords.clinical import cli as clinical_cli
from clinicrecords.encounters import cli as encounters_cli
from clinicrecords.insurance import cli as insurance_cli
from clinicrecords.inventory import cli as inventory_cli
from clinicrecords.review import cli as review_cli
from clinicrecords.test_helpers import schemas
from clinicrecords.test_helpers.resources import (Coverages, Encounters, Items, Referrals, SandboxClinic,
                                                  Stock, Submissions, Till)
from clinicrecords.test_helpers.services import reset_sandbox, run_staff_command

_REFUSED = ["test_helper_refused"]


def _doc(summary, errors=_REFUSED):
    return {"summary": summary, "kind": "test_helper_result", "errors": ["unknown_field", *errors]}


def _clinic(context):
    return context.__parent__.clinic


def _answer(request, clinic, action, result):
    return render_one(request, "test_helper_result",
                      {"object": "test_helper_result", "action": action, "clinic_id": str(clinic.id),
                       "result": result}, plain_only=True)


def _run(context, request, action, handler, **arguments):
    clinic = _clinic(context)
    return _answer(request, clinic, action, run_staff_command(request, clinic, handler, **arguments))


@view_config(context=Submissions, name="accept", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.SubmissionAccept, idempotency="optional",
             openapi=_doc("Sandbox: a clinician accepts a pending submission"))
def accept_submission(context, request):
    body = request.validated
    return _run(context, request, "submissions.accept", review_cli.submission_accept,
                submission_id=body["submission_id"], staff_id=body["staff_id"])


@view_config(context=Submissions, name="decline", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.SubmissionDecline, idempotency="optional",
             openapi=_doc("Sandbox: a clinician declines a pending submission"))
def decline_submission(context, request):
    body = request.validated
    return _run(context, request, "submissions.decline", review_cli.submission_decline,
                submission_id=body["submission_id"], reason=body["reason"], staff_id=body["staff_id"])


@view_config(context=Items, name="review", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.ItemReview, idempotency="optional",
             openapi=_doc("Sandbox: mark an automatically accepted chart item reviewed"))
def review_item(context, request):
    body = request.validated
    return _run(context, request, "items.review", review_cli.item_review, kind=body["kind"],
                item_id=body["item_id"], staff_id=body["staff_id"])


@view_config(context=Referrals, name="act", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.ReferralAct, idempotency="optional",
             openapi=_doc("Sandbox: the clinic accepts, declines, schedules, completes or cancels a referral"))
def act_on_referral(context, request):
    body = request.validated
    return _run(context, request, "referrals.act", clinical_cli.referral_act, referral_id=body["referral_id"],
                status=body["status"], reason=body["reason"])


@view_config(context=Encounters, name="touch", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.EncounterTouch, idempotency="optional",
             openapi=_doc("Sandbox: a clinician edits a draft note (the app can no longer change it)"))
def touch_encounter(context, request):
    return _run(context, request, "encounters.touch", encounters_cli.encounter_touch,
                encounter_id=request.validated["encounter_id"])


@view_config(context=Encounters, name="sign", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.EncounterSign, idempotency="optional",
             openapi=_doc("Sandbox: a clinician signs a draft note (it becomes completed)"))
def sign_encounter(context, request):
    return _run(context, request, "encounters.sign", encounters_cli.encounter_sign,
                encounter_id=request.validated["encounter_id"])


@view_config(context=Coverages, name="confirm", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.CoverageConfirm, idempotency="optional",
             openapi=_doc("Sandbox: staff confirm a coverage"))
def confirm_coverage(context, request):
    return _run(context, request, "coverages.confirm", insurance_cli.coverage_confirm,
                record_id=request.validated["coverage_id"])


@view_config(context=Coverages, name="activate", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.CoverageActivate, idempotency="optional",
             openapi=_doc("Sandbox: staff activate a confirmed coverage"))
def activate_coverage(context, request):
    return _run(context, request, "coverages.activate", insurance_cli.coverage_activate,
                record_id=request.validated["coverage_id"])


@view_config(context=Stock, name="set", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.StockSet, idempotency="optional",
             openapi=_doc("Sandbox: the till sets an item's quantity (bands and events follow)"))
def set_stock(context, request):
    body = request.validated
    return _run(context, request, "stock.set", inventory_cli.stock_set, item_id=body["item_id"],
                quantity=body["quantity"])


@view_config(context=Till, name="report", request_method="POST", permission=TEST_HELPERS,
             idempotency="optional", openapi=_doc("Sandbox: the till reports its stock (fresh)", errors=[]))
def report_till(context, request):
    return _run(context, request, "till.report", inventory_cli.till_report)


@view_config(context=Till, name="stale", request_method="POST", permission=TEST_HELPERS,
             idempotency="optional",
             openapi=_doc("Sandbox: the till stops reporting (every band reads unknown)", errors=[]))
def stale_till(context, request):
    return _run(context, request, "till.stale", inventory_cli.till_stale)


@view_config(context=SandboxClinic, name="reset", request_method="POST", permission=TEST_HELPERS,
             idempotency="optional",
             openapi=_doc("Sandbox: drop every record and restore the seed (one transaction)", errors=[]))
def reset(context, request):
    return _answer(request, context.clinic, "reset", reset_sandbox(request, context.clinic))
