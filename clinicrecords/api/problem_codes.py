"""Every error code the API answers with: its HTTP status and a stable title. One table, audited here.

The OpenAPI document and docs/errors.md are generated from this table.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    status: int
    title: str


CODES = {
    # 400
    "invalid_request": Code(400, "The request is not valid"),
    "reason_required": Code(400, "A reason is required"),
    "unknown_field": Code(400, "The body carries a field that is not accepted"),
    # 401
    "invalid_key": Code(401, "The API key is missing or not valid"),
    # 403
    "scope_missing": Code(403, "The key lacks the permission this route needs"),
    "sandbox_only": Code(403, "A test key reaches only its own sandbox clinic"),
    "not_verified": Code(403, "The workspace is not verified"),
    "workspace_plan_required": Code(403, "The workspace's plan does not allow live access"),
    "ip_not_allowed": Code(403, "Requests from this address are not allowed for this key"),
    "plan_feature_missing": Code(403, "The clinic's plan does not include this feature"),
    "browser_not_allowed": Code(403, "The API is server-to-server; browser requests are refused"),
    "insurer_not_linked": Code(403, "The clinic has not linked an insurer to the caller's organization"),
    # 404, 405
    "not_found": Code(404, "Not found"),
    "method_not_allowed": Code(405, "The method is not allowed on this resource"),
    "not_acceptable": Code(406, "None of the accepted media types can be produced"),
    # 409
    "idempotency_key_conflict": Code(409, "The Idempotency-Key was used for a different request"),
    "idempotency_key_reused": Code(409, "A request with this Idempotency-Key is still running"),
    "client_reference_conflict": Code(409, "The client_reference was sent before with different content"),
    "submission_not_pending": Code(409, "The submission is no longer pending"),
    "coverage_exists": Code(409, "The patient already has a coverage for that payer"),
    "payer_not_enabled": Code(409, "The payer is not enabled by the clinic"),
    "activation_requires_staff": Code(409, "Only clinic staff can activate a coverage"),
    "care_provider_clinic_managed": Code(409, "The contact is managed by the clinic or another app"),
    "note_not_editable": Code(409, "The note was signed or edited by a clinician"),
    "test_helper_refused": Code(409, "Clinic staff could not do that to the sandbox record (the detail says why)"),
    "slot_taken": Code(409, "The slot is already booked"),
    "out_of_office": Code(409, "The clinician's calendar is blocked"),
    "no_provider_available": Code(409, "No eligible clinician is free"),
    "item_has_stock": Code(409, "The item still has stock"),
    "item_has_history": Code(409, "The item has been used and cannot be deleted"),
    "insufficient_stock": Code(409, "The stock cannot cover this movement"),
    "expired_stock_not_transferable": Code(409, "Expired stock cannot be transferred"),
    "batch_rejected": Code(409, "The stock batch was rejected"),
    "referral_not_scheduled": Code(409, "The referral has not been scheduled by the clinic"),
    "appointment_clinic_managed": Code(409, "The appointment was booked by the clinic or another app"),
    "already_imported": Code(409, "Identical import content was already imported"),
    "import_not_runnable": Code(409, "The import cannot run its valid rows"),
    # 413, 414, 415, 429, 431
    "payload_too_large": Code(413, "The request body is too large"),
    "uri_too_long": Code(414, "The URL is too long"),
    "unsupported_media_type": Code(415, "The body must be application/json"),
    "rate_limited": Code(429, "Too many requests"),
    "too_many_exports": Code(429, "The key has as many exports running in this clinic as it may"),
    "too_many_export_kickoffs": Code(429, "The key has kicked off as many exports this hour as it may"),
    "export_polled_too_soon": Code(429, "The export was polled sooner than its Retry-After"),
    "request_header_too_large": Code(431, "The request line and headers are too large"),
    # 5xx
    "internal_error": Code(500, "Internal error"),
    "not_implemented": Code(501, "The request's transfer coding is not supported"),
    "service_unavailable": Code(503, "The service is temporarily unavailable"),
}

PROBLEM_TYPE_PREFIX = "urn:clinicrecords:problem:"


def problem_type(code):
    return PROBLEM_TYPE_PREFIX + code
