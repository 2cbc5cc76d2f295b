from pyramid.view import view_config

from clinicrecords.access.interfaces import DerivedPermission
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.review.interfaces import ISubmissionService, review_kinds
from clinicrecords.review.resources import SubmissionCollection, SubmissionResource
from clinicrecords.review.schemas import SubmissionChange, SubmissionListQuery


def _readable_kinds(request, context):
    granted = clinic_scope(context).granted
    return [name for name, kind in review_kinds(request.registry).items()
            if {kind.read_permission, kind.write_permission} & granted]


@view_config(context=SubmissionCollection, request_method="GET", permission=DerivedPermission.SubmissionsOfKind,
             query_schema=SubmissionListQuery,
             openapi={"summary": "List your own submissions (kinds you may read or send)", "kind": "submission",
                      "many": True})
def list_submissions(context, request):
    page = request.find_service(ISubmissionService).list_own(_readable_kinds(request, context), request.query,
                                                             list_cursors(request))
    return render_page(request, "submission", page)


# What a DELETE leaves behind (docs/decisions/0012-clinical-items-review-queue.md): the caller can still see what
# became of what it sent.
WITHDRAWN_STAYS_READABLE = (
    "Withdrawing decides the submission: it reads review_status `rejected` with decision_reason `withdrawn` "
    "and is never deleted, so GET on it still answers 200 with that record (and a second DELETE 409 "
    "`submission_not_pending`).")


@view_config(context=SubmissionResource, request_method="GET", permission=DerivedPermission.SubmissionsOfKind,
             openapi={"summary": "Read one of your submissions", "kind": "submission"})
def get_submission(context, request):
    return render_one(request, "submission", context.submission, plain_only=True)


@view_config(context=SubmissionResource, request_method="PATCH", permission=DerivedPermission.SubmissionWithdraw,
             body_schema=SubmissionChange, idempotency="optional",
             openapi={"summary": "Change a pending submission (merged into what was sent, validated as a new send)",
                      "kind": "submission", "errors": ["submission_not_pending", "client_reference_conflict"],
                      "description": "A JSON merge patch (RFC 7396) of what the submission's send carried: the "
                                     "fields sent replace those of the send, `null` removes one, an object merges "
                                     "into an object. The result is validated exactly as a new send of the same "
                                     "kind (the POST body of a new item, the PATCH body of a change of an item), "
                                     "with the same client_reference rule (a reference naming another of your "
                                     "submissions is 409 `client_reference_conflict`); `patient_id` and "
                                     "`no_known_allergies` never change. The submission keeps its id and stays "
                                     "pending (a change is never accepted automatically). A submission a clinician "
                                     "has decided, that was withdrawn or accepted automatically, or whose decision "
                                     "commits while the change waits for it, answers 409 "
                                     "`submission_not_pending`."})
def change_submission(context, request):
    submission = request.find_service(ISubmissionService).change(context.submission, dict(request.validated))
    return render_one(request, "submission", submission, plain_only=True)


@view_config(context=SubmissionResource, request_method="DELETE", permission=DerivedPermission.SubmissionWithdraw,
             idempotency="optional", openapi={"summary": "Withdraw a pending submission", "kind": "submission",
                      "errors": ["submission_not_pending"], "description": WITHDRAWN_STAYS_READABLE})
def withdraw_submission(context, request):
    submission = request.find_service(ISubmissionService).withdraw(context.submission)
    return render_one(request, "submission", submission, plain_only=True)
