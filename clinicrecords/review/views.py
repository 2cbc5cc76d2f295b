from pyramid.view import view_config

from clinicrecords.access.interfaces import DerivedPermission
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.review.interfaces import ISubmissionService
from clinicrecords.review.resources import SubmissionCollection, SubmissionResource
from clinicrecords.review.schemas import SubmissionListQuery


def _readable_kinds(request, context):
    granted = clinic_scope(context).granted
    return [name for name, kind in request.registry["review.kinds"].items()
            if {kind.read_permission, kind.write_permission} & granted]


@view_config(context=SubmissionCollection, request_method="GET", permission=DerivedPermission.SubmissionsOfKind,
             query_schema=SubmissionListQuery,
             openapi={"summary": "List your own submissions (kinds you may read or send)", "kind": "submission",
                      "many": True})
def list_submissions(context, request):
    page = request.find_service(ISubmissionService).list_own(_readable_kinds(request, context), request.query,
                                                             list_cursors(request))
    return render_page(request, "submission", page)


# What a DELETE leaves behind (docs/decisions.md): the caller can still see what became of what it sent.
WITHDRAWN_STAYS_READABLE = (
    "Withdrawing decides the submission: it reads review_status `rejected` with decision_reason `withdrawn` "
    "and is never deleted, so GET on it still answers 200 with that record (and a second DELETE 409 "
    "`submission_not_pending`).")


@view_config(context=SubmissionResource, request_method="GET", permission=DerivedPermission.SubmissionsOfKind,
             openapi={"summary": "Read one of your submissions", "kind": "submission"})
def get_submission(context, request):
    return render_one(request, "submission", context.submission, plain_only=True)


@view_config(context=SubmissionResource, request_method="DELETE", permission=DerivedPermission.SubmissionWithdraw,
             openapi={"summary": "Withdraw a pending submission", "kind": "submission",
                      "errors": ["submission_not_pending"], "description": WITHDRAWN_STAYS_READABLE})
def withdraw_submission(context, request):
    submission = request.find_service(ISubmissionService).withdraw(context.submission)
    return render_one(request, "submission", submission, plain_only=True)
