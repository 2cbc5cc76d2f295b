"""The helpers: a staff action each, on the caller's sandbox clinic, answered as the operator command's output
(both call the owning context's staff action in its `services`)."""

from pyramid.view import view_config

from clinicrecords.access.interfaces import TEST_HELPERS
from clinicrecords.api.problems import Problem
from clinicrecords.api.representations import render_one
from clinicrecords.clinical import services as clinical
from clinicrecords.encounters import services as encounters
from clinicrecords.errors import InvalidInput
from clinicrecords.insurance import services as insurance
from clinicrecords.inventory import services as inventory
from clinicrecords.review import services as review
from clinicrecords.settings import app_settings
from clinicrecords.test_helpers import schemas
from clinicrecords.test_helpers.resources import (Coverages, Encounters, Items, Referrals, SandboxClinic,
                                                  Stock, Submissions, Till)
from clinicrecords.test_helpers.services import reset_sandbox

_REFUSED = ["test_helper_refused"]


def _doc(summary, errors=_REFUSED):
    return {"summary": summary, "kind": "test_helper_result", "errors": ["unknown_field", *errors]}


def _clinic(context):
    return context.__parent__.clinic


def _answer(request, clinic, action, result):
    return render_one(request, "test_helper_result",
                      {"object": "test_helper_result", "action": action, "clinic_id": str(clinic.id),
                       "result": result}, plain_only=True)


def _run(context, request, action, staff_action):
    """`staff_action(clinic)` on this sandbox; its refusals become 409 test_helper_refused."""
    clinic = _clinic(context)
    try:
        result = staff_action(clinic)
    except InvalidInput as exc:
        raise Problem("test_helper_refused", str(exc)) from None
    return _answer(request, clinic, action, result)


@view_config(context=Submissions, name="accept", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.SubmissionAccept, idempotency="optional",
             openapi=_doc("Sandbox: a clinician accepts a pending submission"))
def accept_submission(context, request):
    body = request.validated
    return _run(context, request, "submissions.accept", lambda clinic: review.accept_as_staff(
        request.db, request.registry, clinic, body["submission_id"], body["staff_id"]))


@view_config(context=Submissions, name="decline", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.SubmissionDecline, idempotency="optional",
             openapi=_doc("Sandbox: a clinician declines a pending submission"))
def decline_submission(context, request):
    body = request.validated
    return _run(context, request, "submissions.decline", lambda clinic: review.decline_as_staff(
        request.db, request.registry, clinic, body["submission_id"], body["reason"], body["staff_id"]))


@view_config(context=Items, name="review", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.ItemReview, idempotency="optional",
             openapi=_doc("Sandbox: mark an automatically accepted chart item reviewed"))
def review_item(context, request):
    body = request.validated
    return _run(context, request, "items.review", lambda clinic: review.review_item_as_staff(
        request.db, request.registry, clinic, body["kind"], body["item_id"], body["staff_id"]))


@view_config(context=Referrals, name="act", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.ReferralAct, idempotency="optional",
             openapi=_doc("Sandbox: the clinic accepts, declines, schedules, completes or cancels a referral"))
def act_on_referral(context, request):
    body = request.validated
    return _run(context, request, "referrals.act", lambda clinic: clinical.act_on_referral_as_staff(
        request.db, body["referral_id"], body["status"], body["reason"]))


@view_config(context=Encounters, name="touch", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.EncounterTouch, idempotency="optional",
             openapi=_doc("Sandbox: a clinician edits a draft note (the app can no longer change it)"))
def touch_encounter(context, request):
    return _run(context, request, "encounters.touch", lambda clinic: encounters.staff_result(
        encounters.EncounterStaff(request.db).touch(request.validated["encounter_id"])))


@view_config(context=Encounters, name="sign", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.EncounterSign, idempotency="optional",
             openapi=_doc("Sandbox: a clinician signs a draft note (it becomes completed)"))
def sign_encounter(context, request):
    return _run(context, request, "encounters.sign", lambda clinic: encounters.staff_result(
        encounters.EncounterStaff(request.db).sign(request.validated["encounter_id"])))


@view_config(context=Coverages, name="confirm", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.CoverageConfirm, idempotency="optional",
             openapi=_doc("Sandbox: staff confirm a coverage"))
def confirm_coverage(context, request):
    return _run(context, request, "coverages.confirm", lambda clinic: insurance.confirm_coverage_as_staff(
        request.db, request.validated["coverage_id"]))


@view_config(context=Coverages, name="activate", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.CoverageActivate, idempotency="optional",
             openapi=_doc("Sandbox: staff activate a confirmed coverage"))
def activate_coverage(context, request):
    return _run(context, request, "coverages.activate", lambda clinic: insurance.activate_coverage_as_staff(
        request.db, request.validated["coverage_id"]))


@view_config(context=Stock, name="set", request_method="POST", permission=TEST_HELPERS,
             body_schema=schemas.StockSet, idempotency="optional",
             openapi=_doc("Sandbox: the till sets an item's quantity (bands and events follow)"))
def set_stock(context, request):
    body = request.validated
    return _run(context, request, "stock.set", lambda clinic: inventory.set_stock_as_staff(
        request.db, inventory.network_projection(request.registry), clinic, body["item_id"], body["quantity"],
        app_settings(request.registry).inventory))


@view_config(context=Till, name="report", request_method="POST", permission=TEST_HELPERS,
             idempotency="optional", openapi=_doc("Sandbox: the till reports its stock (fresh)", errors=[]))
def report_till(context, request):
    return _run(context, request, "till.report", lambda clinic: inventory.report_till_as_staff(
        request.db, inventory.network_projection(request.registry), clinic, app_settings(request.registry).inventory))


@view_config(context=Till, name="stale", request_method="POST", permission=TEST_HELPERS,
             idempotency="optional",
             openapi=_doc("Sandbox: the till stops reporting (every band reads unknown)", errors=[]))
def stale_till(context, request):
    return _run(context, request, "till.stale", lambda clinic: inventory.mark_till_stale_as_staff(
        request.db, inventory.network_projection(request.registry), clinic, app_settings(request.registry).inventory))


@view_config(context=SandboxClinic, name="reset", request_method="POST", permission=TEST_HELPERS,
             idempotency="optional",
             openapi=_doc("Sandbox: drop every record and restore the seed (one transaction)", errors=[]))
def reset(context, request):
    return _answer(request, context.clinic, "reset", reset_sandbox(request, context.clinic))
