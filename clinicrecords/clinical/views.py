"""Reads answer the item (plain or FHIR R4); sends answer 202 with the submission and its Location."""

from pyramid.traversal import find_interface
from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission as P
from clinicrecords.api.pagination import list_cursors
from clinicrecords.api.representations import render_one, render_page
from clinicrecords.clinical import resources as r
from clinicrecords.clinical import schemas as s
from clinicrecords.clinical.interfaces import IProposalService
from clinicrecords.clinical.schemas import ClinicalListQuery
from clinicrecords.clinics.interfaces import IClinicContext

_SEND_ERRORS = ["client_reference_conflict", "idempotency_key_conflict", "idempotency_key_reused"]


def _accepted(request, context, submission):
    location = request.resource_url(find_interface(context, IClinicContext), "submissions", str(submission.id))
    return render_one(request, "submission", submission, status=202, headers={"Location": location},
                      plain_only=True)


def _propose(context, request, resource_type):
    submission = request.find_service(IProposalService).propose(resource_type, dict(request.validated))
    return _accepted(request, context, submission)


def _propose_change(context, request, resource_type, status_field):
    submission = request.find_service(IProposalService).propose_change(
        resource_type, context.item, dict(request.validated), status_field)
    return _accepted(request, context, submission)


def _list(context, request, kind):
    page = request.find_service(context.service, name=context.service_name).list(request.query,
                                                                             list_cursors(request))
    return render_page(request, kind, page)


# Allergies

@view_config(context=r.AllergyCollection, request_method="GET", permission=P.AllergiesRead,
             query_schema=ClinicalListQuery,
             openapi={"summary": "List allergies (with the clinic's plain list as entry legacy_text, no id)",
                      "kind": "allergy", "many": True})
def list_allergies(context, request):
    return _list(context, request, "allergy")


@view_config(context=r.AllergyResource, request_method="GET", permission=P.AllergiesRead,
             openapi={"summary": "Read an allergy", "kind": "allergy"})
def get_allergy(context, request):
    return render_one(request, "allergy", context.item)


@view_config(context=r.AllergyCollection, request_method="POST", permission=P.AllergiesWrite,
             body_schema=s.AllergyCreate, idempotency="required",
             openapi={"summary": "Send an allergy, or a statement of no known allergies, for review",
                      "status": 202, "kind": "submission", "errors": _SEND_ERRORS})
def send_allergy(context, request):
    return _propose(context, request, "allergy")


@view_config(context=r.AllergyResource, request_method="PATCH", permission=P.AllergiesWrite,
             body_schema=s.AllergyChange, idempotency="optional",
             openapi={"summary": "Propose a change to an allergy (allergy change request)", "status": 202,
                      "kind": "submission", "errors": _SEND_ERRORS})
def change_allergy(context, request):
    return _propose_change(context, request, "allergy", "clinical_status")


# Conditions

@view_config(context=r.ConditionCollection, request_method="GET", permission=P.ConditionsRead,
             query_schema=ClinicalListQuery, openapi={"summary": "List conditions", "kind": "condition", "many": True})
def list_conditions(context, request):
    return _list(context, request, "condition")


@view_config(context=r.ConditionResource, request_method="GET", permission=P.ConditionsRead,
             openapi={"summary": "Read a condition", "kind": "condition"})
def get_condition(context, request):
    return render_one(request, "condition", context.item)


@view_config(context=r.ConditionCollection, request_method="POST", permission=P.ConditionsWrite,
             body_schema=s.ConditionCreate, idempotency="required",
             openapi={"summary": "Send a condition for review", "status": 202, "kind": "submission",
                      "errors": _SEND_ERRORS})
def send_condition(context, request):
    return _propose(context, request, "condition")


@view_config(context=r.ConditionResource, request_method="PATCH", permission=P.ConditionsWrite,
             body_schema=s.ConditionChange, idempotency="optional",
             openapi={"summary": "Propose a change to a condition", "status": 202, "kind": "submission",
                      "errors": _SEND_ERRORS})
def change_condition(context, request):
    return _propose_change(context, request, "condition", "clinical_status")


# Reported medicines

@view_config(context=r.MedicationStatementCollection, request_method="GET", permission=P.MedicationsRead,
             query_schema=ClinicalListQuery,
             openapi={"summary": "List reported medicines", "kind": "medication_statement", "many": True})
def list_medication_statements(context, request):
    return _list(context, request, "medication_statement")


@view_config(context=r.MedicationStatementResource, request_method="GET", permission=P.MedicationsRead,
             openapi={"summary": "Read a reported medicine", "kind": "medication_statement"})
def get_medication_statement(context, request):
    return render_one(request, "medication_statement", context.item)


@view_config(context=r.MedicationStatementCollection, request_method="POST", permission=P.MedicationsWrite,
             body_schema=s.MedicationStatementCreate, idempotency="required",
             openapi={"summary": "Report a medicine for review", "status": 202, "kind": "submission",
                      "errors": _SEND_ERRORS})
def send_medication_statement(context, request):
    return _propose(context, request, "medication_statement")


@view_config(context=r.MedicationStatementResource, request_method="PATCH", permission=P.MedicationsWrite,
             body_schema=s.MedicationStatementChange, idempotency="optional",
             openapi={"summary": "Propose a change to a reported medicine", "status": 202,
                      "kind": "submission", "errors": _SEND_ERRORS})
def change_medication_statement(context, request):
    return _propose_change(context, request, "medication_statement", "status")


# Referrals

@view_config(context=r.ReferralCollection, request_method="GET", permission=P.ReferralsRead,
             query_schema=ClinicalListQuery, openapi={"summary": "List referrals", "kind": "referral", "many": True})
def list_referrals(context, request):
    return _list(context, request, "referral")


@view_config(context=r.ReferralResource, request_method="GET", permission=P.ReferralsRead,
             openapi={"summary": "Read a referral", "kind": "referral"})
def get_referral(context, request):
    return render_one(request, "referral", context.item)


@view_config(context=r.ReferralCollection, request_method="POST", permission=P.ReferralsWrite,
             body_schema=s.ReferralCreate, idempotency="required",
             openapi={"summary": "Send a referral for review", "status": 202, "kind": "submission",
                      "errors": _SEND_ERRORS})
def send_referral(context, request):
    return _propose(context, request, "referral")


@view_config(context=r.ReferralResource, request_method="PATCH", permission=P.ReferralsWrite,
             body_schema=s.ReferralChange, idempotency="optional",
             openapi={"summary": "Change or take back a referral the clinic has not acted on", "status": 202,
                      "kind": "submission", "errors": _SEND_ERRORS})
def change_referral(context, request):
    return _propose_change(context, request, "referral", "status")
