from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.insurance.interfaces import ICoverages, IPayers, IPaymentAdvices
from clinicrecords.insurance.resources import (
    CoverageCollection,
    CoverageResource,
    PayerCollection,
    PayerResource,
    PaymentAdviceCollection,
)
from clinicrecords.insurance.schemas import (
    CoverageCreate,
    CoverageListQuery,
    CoverageUpdate,
    PayerListQuery,
    PaymentAdviceCreate,
)


def _may_read_patients(context):
    return Permission.PatientsRead.value in clinic_scope(context).granted


@view_config(context=PayerCollection, request_method="GET", permission=Permission.PayersRead,
             query_schema=PayerListQuery,
             openapi={"summary": "Search the payers the clinic enabled", "kind": "payer", "many": True})
def list_payers(context, request):
    return render_page(request, "payer", request.find_service(IPayers).list(request.query))


@view_config(context=PayerResource, request_method="GET", permission=Permission.PayersRead,
             openapi={"summary": "Read a payer", "kind": "payer"})
def get_payer(context, request):
    return render_one(request, "payer", context.payer)


@view_config(context=CoverageCollection, request_method="GET", permission=Permission.CoverageRead,
             query_schema=CoverageListQuery,
             openapi={"summary": "List coverages", "kind": "coverage", "many": True})
def list_coverages(context, request):
    return render_page(request, "coverage", request.find_service(ICoverages).list(request.query))


@view_config(context=CoverageResource, request_method="GET", permission=Permission.CoverageRead,
             openapi={"summary": "Read a coverage", "kind": "coverage"})
def get_coverage(context, request):
    return render_one(request, "coverage", context.coverage)


@view_config(context=CoverageCollection, request_method="POST", permission=Permission.CoverageWrite,
             body_schema=CoverageCreate, idempotency="required",
             openapi={"summary": "Add a coverage (unconfirmed, inactive)", "status": 201, "kind": "coverage",
                      "errors": ["coverage_exists", "payer_not_enabled", "activation_requires_staff"]})
def create_coverage(context, request):
    coverage = request.find_service(ICoverages).create(request.validated, _may_read_patients(context))
    location = request.resource_url(context, str(coverage.id))
    return render_one(request, "coverage", coverage, status=201, headers={"Location": location}, plain_only=True)


@view_config(context=CoverageResource, request_method="PATCH", permission=Permission.CoverageWrite,
             body_schema=CoverageUpdate, idempotency="optional",
             openapi={"summary": "Update a coverage", "kind": "coverage",
                      "errors": ["coverage_exists", "payer_not_enabled", "activation_requires_staff"]})
def update_coverage(context, request):
    coverage = request.find_service(ICoverages).update(context.coverage, request.validated,
                                                             _may_read_patients(context))
    return render_one(request, "coverage", coverage, plain_only=True)


@view_config(context=PaymentAdviceCollection, request_method="POST",
             permission=Permission.InsuranceRemittancesWrite, body_schema=PaymentAdviceCreate,
             idempotency="required", idempotent_replay_field=True,
             openapi={"summary": "Send a payment advice", "status": 201, "kind": "payment_advice",
                      "errors": ["insurer_not_linked"]})
def create_payment_advice(context, request):
    advice = request.find_service(IPaymentAdvices).create(request.validated)
    return render_one(request, "payment_advice", advice, status=201, plain_only=True)
