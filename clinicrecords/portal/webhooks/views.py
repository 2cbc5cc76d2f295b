from pyramid.view import view_config

from clinicrecords.portal.web.forms import Form, FormError, rerender, see_other
from clinicrecords.portal.web.resources import MEMBER
from clinicrecords.portal.webhooks.forms import NewEndpointForm, RecoverForm, RotateForm
from clinicrecords.portal.webhooks.interfaces import IWebhookPages
from clinicrecords.portal.webhooks.resources import EndpointResource, WebhooksCollection
from clinicrecords.portal.webhooks.services import STATUS_FILTERS

T = "clinicrecords.portal.webhooks:templates/"


def _pages(request):
    return request.find_service(IWebhookPages)


def _member(request):
    return request.identity.account_id


def _mode(request):
    return "live" if request.params.get("mode") == "live" else "test"


def _to_endpoint(request, workspace_id, endpoint_id, **banner):
    return see_other(request, "workspaces", workspace_id, "webhooks", endpoint_id, **banner)


def _no_store(request):
    """An answer carrying a signing secret: never cached."""
    request.response.headers["Cache-Control"] = "no-store"
    request.response.headers["Pragma"] = "no-cache"


@view_config(route_name="portal", context=WebhooksCollection, request_method="GET",
             renderer=T + "list.jinja2", permission=MEMBER)
def endpoints(context, request):
    mode = _mode(request)
    return {"mode": mode, "endpoints": _pages(request).list(context.owner, mode)}


def _new_page(request, form):
    return {"form": form, "event_types": _pages(request).event_types}


@view_config(route_name="portal", context=WebhooksCollection, name="new", request_method="GET",
             renderer=T + "new.jinja2", permission=MEMBER)
def new_endpoint_page(context, request):
    return _new_page(request, NewEndpointForm({"mode": _mode(request)}))


@view_config(route_name="portal", context=WebhooksCollection, name="new", request_method="POST",
             renderer=T + "new.jinja2", permission=MEMBER)
def add_endpoint(context, request):
    form = NewEndpointForm(request.POST)
    try:
        endpoint = _pages(request).add(context.owner, form["mode"], form["url"], form["types"],
                                       _member(request))
    except FormError as exc:
        return rerender(request, **_new_page(request, form.refused(exc)))
    return _to_endpoint(request, context.workspace.id, endpoint["endpoint_id"], added=1)


def endpoint_page(context, request, **extra):
    """The endpoint's page: its settings, actions and a page of its deliveries log."""
    status = request.params.get("status", "")
    starting_after = request.params.get("starting_after", "")
    log = _pages(request).log(context.owner, context.endpoint, status, starting_after)
    values = {"endpoint": context.endpoint, "log": log, "status": status if status in STATUS_FILTERS else "",
              "statuses": STATUS_FILTERS, "paged": bool(starting_after), "form": None, "secret": None,
              "tested": None}
    values.update(extra)
    return values


@view_config(route_name="portal", context=EndpointResource, request_method="GET",
             renderer=T + "endpoint.jinja2", permission=MEMBER)
def endpoint(context, request):
    return endpoint_page(context, request)


@view_config(route_name="portal", context=EndpointResource, name="secret", request_method="POST",
             renderer=T + "endpoint.jinja2", permission=MEMBER)
def reveal_secret(context, request):
    secret = _pages(request).reveal_secret(context.owner, context.endpoint, _member(request))
    _no_store(request)
    return endpoint_page(context, request, secret=secret)


def _refused(context, request, exc):
    """The endpoint's page again, with the action's refusal at the top."""
    request.override_renderer = T + "endpoint.jinja2"
    return rerender(request, **endpoint_page(context, request, form=Form().refused(exc)))


@view_config(route_name="portal", context=EndpointResource, name="test", request_method="POST",
             renderer=T + "endpoint.jinja2", permission=MEMBER)
def send_test(context, request):
    try:
        tested = _pages(request).send_test(context.owner, context.endpoint, _member(request))
    except FormError as exc:
        return _refused(context, request, exc)
    context.endpoint = dict(context.endpoint, status=tested["endpoint_status"])  # a 2xx may enable it again
    return endpoint_page(context, request, tested=tested)


@view_config(route_name="portal", context=EndpointResource, name="resend", request_method="POST",
             renderer=T + "endpoint.jinja2", permission=MEMBER)
def resend(context, request):
    try:
        _pages(request).resend(context.owner, context.endpoint, request.POST.get("delivery_id", ""),
                               _member(request))
    except FormError as exc:
        return _refused(context, request, exc)
    return _to_endpoint(request, context.workspace.id, context.endpoint_id, resent=1)


@view_config(route_name="portal", context=EndpointResource, name="disable", request_method="POST",
             permission=MEMBER)
def disable(context, request):
    _pages(request).disable(context.owner, context.endpoint, _member(request))
    return _to_endpoint(request, context.workspace.id, context.endpoint_id, changed="disabled")


@view_config(route_name="portal", context=EndpointResource, name="enable", request_method="POST",
             permission=MEMBER)
def enable(context, request):
    _pages(request).enable(context.owner, context.endpoint, _member(request))
    return _to_endpoint(request, context.workspace.id, context.endpoint_id, changed="enabled")


@view_config(route_name="portal", context=EndpointResource, name="recover", request_method="GET",
             renderer=T + "recover.jinja2", permission=MEMBER)
def recover_page(context, request):
    return {"form": RecoverForm(), "endpoint": context.endpoint}


@view_config(route_name="portal", context=EndpointResource, name="recover", request_method="POST",
             renderer=T + "recover.jinja2", permission=MEMBER)
def recover(context, request):
    form = RecoverForm(request.POST)
    try:
        queued = _pages(request).recover(context.owner, context.endpoint, form["since"], _member(request))
    except FormError as exc:
        return rerender(request, form=form.refused(exc), endpoint=context.endpoint)
    return _to_endpoint(request, context.workspace.id, context.endpoint_id, recovered=queued)


@view_config(route_name="portal", context=EndpointResource, name="rotate", request_method="GET",
             renderer=T + "rotate.jinja2", permission=MEMBER)
def rotate_page(context, request):
    return {"form": RotateForm({"overlap": "24h"}), "endpoint": context.endpoint}


@view_config(route_name="portal", context=EndpointResource, name="rotate", request_method="POST",
             renderer=T + "rotate.jinja2", permission=MEMBER)
def rotate(context, request):
    form = RotateForm(request.POST)
    try:
        rotated, secret = _pages(request).rotate_secret(context.owner, context.endpoint, form["overlap"],
                                                        _member(request))
    except FormError as exc:
        return rerender(request, form=form.refused(exc), endpoint=context.endpoint)
    _no_store(request)
    request.override_renderer = T + "rotated.jinja2"
    return {"endpoint": rotated, "secret": secret}


@view_config(route_name="portal", context=EndpointResource, name="delete", request_method="GET",
             renderer=T + "delete.jinja2", permission=MEMBER)
def delete_page(context, request):
    return {"endpoint": context.endpoint}


@view_config(route_name="portal", context=EndpointResource, name="delete", request_method="POST",
             renderer="clinicrecords.portal.web:templates/confirmation.jinja2", permission=MEMBER)
def delete(context, request):
    _pages(request).delete(context.owner, context.endpoint, _member(request))
    return {"title": f"Webhook endpoint {context.endpoint['url']} deleted",
            "message": "Nothing more is sent to it; its signing secret and deliveries log are gone.",
            "next_url": request.portal_url("workspaces", context.workspace.id, "webhooks",
                                           mode=context.endpoint["mode"]),
            "next_label": "Back to webhooks"}
