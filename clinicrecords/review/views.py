from pyramid.traversal import find_interface
from pyramid.view import view_config

from clinicrecords.access.permissions import DerivedPermission
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.clinics.resources import ClinicResource
from clinicrecords.review.resources import SubmissionCollection, SubmissionResource
from clinicrecords.review.schemas import SubmissionListQuery


def _readable_kinds(request, context):
    granted = find_interface(context, ClinicResource).granted
    return [name for name, kind in request.registry["review.kinds"].items()
            if {kind.read_permission, kind.write_permission} & granted]


@view_config(context=SubmissionCollection, request_method="GET", permission=DerivedPermission.SubmissionsOfKind,
             query_schema=SubmissionListQuery,
             openapi={"summary": "List your own submissions (kinds you may read or send)", "kind": "submission",
                      "many": True})
def list_submissions(context, request):
    page = request.find_service(name="submissions").list_own(request.identity, _readable_kinds(request, context),
                                                             request.query)
    return render_page(request, "submission", page)


@view_config(context=SubmissionResource, request_method="GET", permission=DerivedPermission.SubmissionsOfKind,
             openapi={"summary": "Read one of your submissions", "kind": "submission"})
def get_submission(context, request):
    return render_one(request, "submission", context.submission, plain_only=True)


@view_config(context=SubmissionResource, request_method="DELETE", permission=DerivedPermission.SubmissionWithdraw,
             openapi={"summary": "Withdraw a pending submission", "kind": "submission",
                      "errors": ["submission_not_pending"]})
def withdraw_submission(context, request):
    clinic = find_interface(context, ClinicResource).clinic
    submission = request.find_service(name="submissions").withdraw(clinic, context.submission)
    return render_one(request, "submission", submission, plain_only=True)
