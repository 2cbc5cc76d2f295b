"""The webhook pages, each view registered on every face (resources.FACES: a workspace's, a clinic's own)
with that face's permission; the context supplies the owner, the URLs and the layout."""

from pyramid.view import view_config

from clinicrecords.portal.web.forms import Form, FormError, rerender, see_other
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.reauth import Sensitive
from clinicrecords.portal.webhooks.forms import DeliveriesFilter, NewEndpointForm, RecoverForm, ResendForm, RotateForm
from clinicrecords.portal.webhooks.interfaces import IWebhookPages
from clinicrecords.portal.webhooks.resources import FACES
from clinicrecords.portal.webhooks.services import STATUS_FILTERS

T = "clinicrecords.portal.webhooks:templates/"


def webhooks_view(on="area", **settings):
    """`view_config` once per face: on its endpoints list (`on="area"`) or on one endpoint (`"endpoint"`)."""
    def register(view):
        for face in FACES:
            context = face if on == "area" else face.item_resource
            view_config(route_name="portal", context=context, permission=face.permission, _depth=1,
                        **settings)(view)
        return view
    return register


def _pages(request):
    return request.find_service(IWebhookPages)


def _account(request):
    return request.identity.account_id


def _mode(context, request):
    mode = request.params.get("mode")
    return mode if mode in context.modes else context.modes[0]


def _to_endpoint(context, request, **banner):
    return see_other(request, *context.path, **banner)


def _no_store(request):
    """An answer carrying a signing secret: never cached."""
    request.response.headers["Cache-Control"] = "no-store"
    request.response.headers["Pragma"] = "no-cache"


@webhooks_view(request_method="GET", renderer=T + "list.jinja2")
def endpoints(context, request):
    mode = _mode(context, request)
    return {"mode": mode, "endpoints": _pages(request).list(context.owner, mode),
            "notice": shown_once(request, "notice").value}


def _new_page(request, form):
    return {"form": form, "event_types": _pages(request).event_types}


@webhooks_view(name="new", request_method="GET", renderer=T + "new.jinja2")
def new_endpoint_page(context, request):
    return _new_page(request, NewEndpointForm({"mode": _mode(context, request)}))


@webhooks_view(name="new", request_method="POST", renderer=T + "new.jinja2")
def add_endpoint(context, request):
    form = NewEndpointForm(request.POST)
    try:
        endpoint = _pages(request).add(context.owner, form["mode"], form["url"], form["types"],
                                       _account(request))
    except FormError as exc:
        return rerender(request, **_new_page(request, form.refused(exc)))
    return see_other(request, *context.path, endpoint["endpoint_id"], added=1)


def endpoint_page(context, request, **extra):
    """The endpoint's page: its settings, actions and a page of its deliveries log."""
    shown = DeliveriesFilter(request.GET)
    try:
        status, starting_after = shown["status"], shown["starting_after"]
    except FormError:  # the newest deliveries, with the filter's message above them
        status, starting_after = "", ""
        request.response.status = 400
    log = _pages(request).log(context.owner, context.endpoint, status, starting_after)
    values = {"endpoint": context.endpoint, "log": log, "status": status if status in STATUS_FILTERS else "",
              "statuses": STATUS_FILTERS, "paged": bool(starting_after), "form": None if shown.valid else shown,
              "secret": None, "secret_gone": False, "tested": None}
    values.update(extra)
    return values


@webhooks_view("endpoint", request_method="GET", renderer=T + "endpoint.jinja2")
def endpoint(context, request):
    # After "Reveal" or "Send test event": the secret or the receiver's answer, once.
    secret, tested = shown_once(request, "webhook_secret"), shown_once(request, "webhook_test")
    if secret.asked:
        _no_store(request)
    return endpoint_page(context, request, secret=secret.value, secret_gone=secret.gone,
                         tested=tested.value)


def _endpoint_page(context, request):
    return request.portal_url(*context.path)


@webhooks_view("endpoint", name="secret", request_method="POST", reauth=Sensitive(form=_endpoint_page))
def reveal_secret(context, request):
    secret = _pages(request).reveal_secret(context.owner, context.endpoint, _account(request))
    return see_other_once(request, "webhook_secret", secret, *context.path)


def _refused(context, request, exc):
    """The endpoint's page again, with the action's refusal at the top."""
    request.override_renderer = T + "endpoint.jinja2"
    return rerender(request, **endpoint_page(context, request, form=Form().refused(exc)))


@webhooks_view("endpoint", name="test", request_method="POST", renderer=T + "endpoint.jinja2")
def send_test(context, request):
    try:
        tested = _pages(request).send_test(context.owner, context.endpoint, _account(request))
    except FormError as exc:
        return _refused(context, request, exc)
    return see_other_once(request, "webhook_test", tested, *context.path)


@webhooks_view("endpoint", name="resend", request_method="POST", renderer=T + "endpoint.jinja2")
def resend(context, request):
    try:
        _pages(request).resend(context.owner, context.endpoint, ResendForm(request.POST)["delivery_id"],
                               _account(request))
    except FormError as exc:
        return _refused(context, request, exc)
    return _to_endpoint(context, request, resent=1)


@webhooks_view("endpoint", name="disable", request_method="POST")
def disable(context, request):
    _pages(request).disable(context.owner, context.endpoint, _account(request))
    return _to_endpoint(context, request, changed="disabled")


@webhooks_view("endpoint", name="enable", request_method="POST")
def enable(context, request):
    _pages(request).enable(context.owner, context.endpoint, _account(request))
    return _to_endpoint(context, request, changed="enabled")


@webhooks_view("endpoint", name="recover", request_method="GET", renderer=T + "recover.jinja2")
def recover_page(context, request):
    return {"form": RecoverForm(), "endpoint": context.endpoint}


@webhooks_view("endpoint", name="recover", request_method="POST", renderer=T + "recover.jinja2")
def recover(context, request):
    form = RecoverForm(request.POST)
    try:
        queued = _pages(request).recover(context.owner, context.endpoint, form["since"], _account(request))
    except FormError as exc:
        return rerender(request, form=form.refused(exc), endpoint=context.endpoint)
    return _to_endpoint(context, request, recovered=queued)


@webhooks_view("endpoint", name="rotate", request_method="GET", renderer=T + "rotate.jinja2", reauth=True)
def rotate_page(context, request):
    return {"form": RotateForm({"overlap": "24h"}), "endpoint": context.endpoint}


@webhooks_view("endpoint", name="rotate", request_method="POST", renderer=T + "rotate.jinja2", reauth=True)
def rotate(context, request):
    form = RotateForm(request.POST)
    try:
        _, secret = _pages(request).rotate_secret(context.owner, context.endpoint, form["overlap"],
                                                        _account(request))
    except FormError as exc:
        return rerender(request, form=form.refused(exc), endpoint=context.endpoint)
    return see_other_once(request, "webhook_secret", secret, *context.path, "rotated")


@webhooks_view("endpoint", name="rotated", request_method="GET", renderer=T + "rotated.jinja2")
def rotated(context, request):
    _no_store(request)
    return {"endpoint": context.endpoint, "secret": shown_once(request, "webhook_secret").value}


@webhooks_view("endpoint", name="delete", request_method="GET", renderer=T + "delete.jinja2")
def delete_page(context, request):
    return {"endpoint": context.endpoint}


@webhooks_view("endpoint", name="delete", request_method="POST")
def delete(context, request):
    _pages(request).delete(context.owner, context.endpoint, _account(request))
    mode = context.endpoint["mode"]
    return see_other_once(request, "notice", {
        "title": f"Webhook endpoint {context.endpoint['url']} deleted",
        "message": "Nothing more is sent to it; its signing secret and deliveries log are gone."},
        *context.area.path, mode=mode if len(context.area.modes) > 1 else None)
