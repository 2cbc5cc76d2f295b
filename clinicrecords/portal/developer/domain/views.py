import math

from pyramid.view import view_config

from clinicrecords.onboarding import interfaces as onboarding
from clinicrecords.portal.developer.domain.forms import ChangeDomainForm, DomainForm
from clinicrecords.portal.developer.domain.interfaces import IDomainPages
from clinicrecords.portal.developer.domain.services import CheckRefused
from clinicrecords.portal.developer.domain.resources import DomainPage
from clinicrecords.portal.web.forms import FormError, rerender, see_other
from clinicrecords.portal.web.resources import MEMBER, OWNER

T = "clinicrecords.portal.developer.domain:templates/"

# What one check found, as the page says it.
RESULTS = {
    onboarding.FOUND: "The record was found",
    onboarding.WRONG_VALUE: "TXT records exist at the host, but none has this value",
    onboarding.NO_TXT: "The host exists but has no TXT record",
    onboarding.NXDOMAIN: "The host does not exist in DNS yet",
    onboarding.TIMEOUT: "DNS did not answer in time (this never counts as absent)",
    onboarding.SERVFAIL: "The DNS servers failed to answer, SERVFAIL (this never counts as absent)",
    onboarding.DNS_ERROR: "The lookup failed (this never counts as absent)",
}


def _page(context, request, form=None):
    return {"status": request.find_service(IDomainPages).status(context.workspace.id),
            "form": form or DomainForm(), "results": RESULTS,
            "lapse_after": onboarding.LAPSE_AFTER_ABSENT_CHECKS}


def _claim(context, request, form, template):
    """Set the domain; a domain that replaces another one needs the member's confirmation first."""
    pages = request.find_service(IDomainPages)
    try:
        replacing = pages.replaces(context.workspace.id, form["domain"])
        if replacing is not None and form["confirm"] != "yes":  # nothing changed yet: the confirmation, by GET
            return see_other(request, "workspaces", context.workspace.id, "domain", "change", domain=form["domain"])
        pages.set_domain(context.workspace.id, form["domain"], request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        request.override_renderer = template
        if template.endswith("change.jinja2"):
            return rerender(request, form=form, current=pages.status(context.workspace.id), confirming=None)
        return rerender(request, **_page(context, request, form))
    return see_other(request, "workspaces", context.workspace.id, "domain", saved=1)


@view_config(route_name="portal", context=DomainPage, request_method="GET", renderer=T + "domain.jinja2",
             permission=MEMBER)
def domain_page(context, request):
    return _page(context, request)


@view_config(route_name="portal", context=DomainPage, request_method="POST", renderer=T + "domain.jinja2",
             permission=OWNER)
def set_domain(context, request):
    return _claim(context, request, ChangeDomainForm(request.POST), T + "domain.jinja2")


@view_config(route_name="portal", context=DomainPage, name="change", request_method="GET",
             renderer=T + "change.jinja2", permission=OWNER)
def change_page(context, request):
    """The form, or (`?domain=`, where a POST that would replace the domain redirects) its confirmation."""
    pages = request.find_service(IDomainPages)
    form = ChangeDomainForm({"domain": request.GET.get("domain", "")})
    current = pages.status(context.workspace.id)
    try:
        confirming = pages.replaces(context.workspace.id, form["domain"]) if form["domain"] else None
    except FormError as exc:
        return rerender(request, form=form.refused(exc), current=current, confirming=None)
    return {"form": form, "current": current, "confirming": confirming}


@view_config(route_name="portal", context=DomainPage, name="change", request_method="POST",
             renderer=T + "change.jinja2", permission=OWNER)
def change_domain(context, request):
    return _claim(context, request, ChangeDomainForm(request.POST), T + "change.jinja2")


@view_config(route_name="portal", context=DomainPage, name="check", request_method="POST",
             renderer=T + "domain.jinja2", permission=MEMBER)
def check_now(context, request):
    try:
        request.find_service(IDomainPages).check_now(context.workspace.id, request.identity.account_id)
    except CheckRefused as exc:
        page = rerender(request, **_page(context, request, DomainForm().refused(exc)))
        request.response.status = 429
        request.response.headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after.total_seconds())))
        return page
    except FormError as exc:
        return rerender(request, **_page(context, request, DomainForm().refused(exc)))
    return see_other(request, "workspaces", context.workspace.id, "domain", checked=1)
