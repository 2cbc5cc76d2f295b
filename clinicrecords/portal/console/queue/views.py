import uuid

from pyramid.view import view_config

from clinicrecords.portal.console.queue.forms import AcceptForm, DeclineForm, QueueFilter, ReviewForm
from clinicrecords.portal.console.queue.services import Filters
from clinicrecords.portal.console.queue.interfaces import IReviewQueue
from clinicrecords.portal.console.queue.resources import DecidedSubmission, PendingSubmission, QueuePage, ReviewsPage
from clinicrecords.portal.web.forms import FormError, rerender, see_other
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.resources import CLINICIAN

T = "clinicrecords.portal.console.queue:templates/"


@view_config(route_name="portal", context=QueuePage, request_method="GET", renderer=T + "queue.jinja2",
             permission=CLINICIAN)
def queue(context, request):
    service = request.find_service(IReviewQueue)
    form = QueueFilter(request.GET)
    try:
        filters = form.filters()
    except FormError:  # the whole queue, with the filter's message above it
        filters = Filters()
        request.response.status = 400
    # The banner after a decision is what that POST stashed for this session, never words from the address.
    return {"decided": shown_once(request, "decided").value,
            "entries": service.pending(context.clinic.id, filters), "filters": filters, "form": form,
            "kinds": service.kind_names(), "senders": service.senders(context.clinic.id),
            "awaiting": len(service.awaiting_review(context.clinic.id))}


def _submission_page(context, request, accept_form=None, decline_form=None):
    return {"entry": context.entry, "accept_form": accept_form or AcceptForm(),
            "decline_form": decline_form or DeclineForm()}


@view_config(route_name="portal", context=PendingSubmission, request_method="GET",
             renderer=T + "submission.jinja2",
             permission=CLINICIAN)
def submission(context, request):
    return _submission_page(context, request)


def _decided(request, context, result):
    patient = context.entry.patient
    return see_other_once(request, "decided", {"result": result,
                                               "patient_name": f"{patient.given_name} {patient.family_name}"},
                          "clinics", context.clinic.id, "queue")


@view_config(route_name="portal", context=PendingSubmission, name="accept", request_method="POST",
             renderer=T + "submission.jinja2", permission=CLINICIAN)
def accept(context, request):
    form = AcceptForm(request.POST)
    try:
        request.find_service(IReviewQueue).accept(context.clinic.id, context.entry.submission.id,
                                                  request.identity.account_id, form["seen"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_submission_page(context, request, accept_form=form))
    return _decided(request, context, "accepted")


@view_config(route_name="portal", context=PendingSubmission, name="decline", request_method="POST",
             renderer=T + "submission.jinja2", permission=CLINICIAN)
def decline(context, request):
    form = DeclineForm(request.POST)
    try:
        request.find_service(IReviewQueue).decline(context.clinic.id, context.entry.submission.id,
                                                   form["reason"],
                                                   request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_submission_page(context, request, decline_form=form))
    return _decided(request, context, "declined")


@view_config(route_name="portal", context=DecidedSubmission, request_method="GET", renderer=T + "decided.jinja2",
             permission=CLINICIAN)
def decided(context, request):
    return {"decision": context.decision}


@view_config(route_name="portal", context=DecidedSubmission, name="accept", request_method="POST",
             renderer=T + "decided.jinja2", permission=CLINICIAN)
@view_config(route_name="portal", context=DecidedSubmission, name="decline", request_method="POST",
             renderer=T + "decided.jinja2", permission=CLINICIAN)
def decided_already(context, request):
    """Deciding a submission someone else decided meanwhile: nothing changes, the page says who and when."""
    request.response.status = 409
    return {"decision": context.decision, "attempted": request.view_name}


def _reviews_page(context, request, form):
    return {"form": form, "items": request.find_service(IReviewQueue).awaiting_review(context.clinic.id)}


@view_config(route_name="portal", context=ReviewsPage, request_method="GET", renderer=T + "reviews.jinja2",
             permission=CLINICIAN)
def reviews(context, request):
    return _reviews_page(context, request, ReviewForm())


@view_config(route_name="portal", context=ReviewsPage, request_method="POST", renderer=T + "reviews.jinja2",
             permission=CLINICIAN)
def mark_reviewed(context, request):
    form = ReviewForm(request.POST)
    try:
        item_id = uuid.UUID(form.text("item_id"))
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_reviews_page(context, request, form))
    except ValueError:
        form.error("item", "Choose an item to mark reviewed")
        return rerender(request, **_reviews_page(context, request, form))
    try:
        request.find_service(IReviewQueue).mark_reviewed(context.clinic.id, form.text("kind"), item_id,
                                                         request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_reviews_page(context, request, form))
    return see_other(request, "clinics", context.clinic.id, "queue", "reviews", reviewed=item_id)
