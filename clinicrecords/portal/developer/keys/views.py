from pyramid.view import view_config

from clinicrecords.access.interfaces import ALL_PERMISSIONS, key_label, masked
from clinicrecords.portal.developer.keys.forms import IpAllowForm, NewKeyForm, RollForm
from clinicrecords.portal.developer.keys.interfaces import IKeyService, ILiveKeyGate
from clinicrecords.portal.developer.keys.resources import KeyResource, KeysCollection
from clinicrecords.portal.web.forms import FormError, rerender, see_other
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.resources import MEMBER

T = "clinicrecords.portal.developer.keys:templates/"


def shown_key(key, full_key, rolled_from=None):
    """What the page after a creation or a roll shows once (a one-time read: JSON, sealed)."""
    shown = {"mode": key.mode, "masked": masked(key.mode, key.key_id), "name": key.name, "scopes": key.scopes,
             "secret": full_key, "rolled_from": None}
    if rolled_from is not None:
        stops = None if rolled_from.revoked_at else rolled_from.expires_at  # revoked: it stopped at once
        shown["rolled_from"] = {"label": key_label(rolled_from),
                                "stops_at": stops.strftime("%Y-%m-%d %H:%M UTC") if stops else None}
    return shown


def secret_page(request):
    """The one page that carries a secret, once: never cached; a reload says it was shown once."""
    request.response.headers["Cache-Control"] = "no-store"
    request.response.headers["Pragma"] = "no-cache"
    shown = shown_once(request, "key")
    return {"shown": shown.value, "gone": shown.value is None}


@view_config(route_name="portal", context=KeysCollection, request_method="GET", renderer=T + "list.jinja2",
             permission=MEMBER)
def keys(context, request):
    service = request.find_service(IKeyService)
    keys = service.keys(context.workspace.id)
    return {"keys": keys, "rolled": service.rolled(keys), "masked": masked,
            "notice": shown_once(request, "notice").value}


@view_config(route_name="portal", context=KeysCollection, name="created", request_method="GET",
             renderer=T + "created.jinja2", permission=MEMBER)
def key_created(context, request):
    return secret_page(request)


def _new_key_page(context, request, form):
    return {"form": form, "checklist": request.find_service(ILiveKeyGate).checklist(context.workspace.id),
            "permissions": sorted(ALL_PERMISSIONS), "ticked": set(request.POST.getall("scopes"))}


@view_config(route_name="portal", context=KeysCollection, name="new", request_method="GET",
             renderer=T + "new.jinja2", permission=MEMBER)
def new_key_page(context, request):
    mode = request.params.get("mode")
    return _new_key_page(context, request, NewKeyForm({"mode": mode if mode in ("test", "live") else "test",
                                                       "access": "all"}))


@view_config(route_name="portal", context=KeysCollection, name="new", request_method="POST",
             renderer=T + "new.jinja2", permission=MEMBER)
def create_key(context, request):
    form = NewKeyForm(request.POST)
    try:
        key, full_key = request.find_service(IKeyService).create(
            context.workspace.id, form["mode"], form["ip_allow"], request.identity.account_id, name_text=form["name"],
            access_choice=form["access"], ticked=request.POST.getall("scopes"))
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_new_key_page(context, request, form))
    return see_other_once(request, "key", shown_key(key, full_key), "workspaces", context.workspace.id, "keys",
                          "created")


@view_config(route_name="portal", context=KeyResource, name="revoke", request_method="GET",
             renderer=T + "revoke.jinja2", permission=MEMBER)
def revoke_page(context, request):
    return {"masked": masked(context.key.mode, context.key.key_id)}


def revoked_notice(key):
    return {"title": f"Key {key_label(key)} revoked",
            "message": "It is refused from the next request on."}


@view_config(route_name="portal", context=KeyResource, name="revoke", request_method="POST", permission=MEMBER)
def revoke(context, request):
    request.find_service(IKeyService).revoke(context.workspace.id, context.key, request.identity.account_id)
    return see_other_once(request, "notice", revoked_notice(context.key), "workspaces", context.workspace.id, "keys")


@view_config(route_name="portal", context=KeyResource, name="roll", request_method="GET",
             renderer=T + "roll.jinja2", permission=MEMBER)
def roll_page(context, request):
    return {"form": RollForm({"overlap": "24h"}), "masked": masked(context.key.mode, context.key.key_id),
            "rolled": bool(request.find_service(IKeyService).rolled([context.key]))}


@view_config(route_name="portal", context=KeyResource, name="roll", request_method="POST",
             renderer=T + "roll.jinja2", permission=MEMBER)
def roll(context, request):
    form = RollForm(request.POST)
    old_name = masked(context.key.mode, context.key.key_id)
    try:
        new, full_key = request.find_service(IKeyService).roll(context.workspace.id, context.key, form["overlap"],
                                                               request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, masked=old_name, rolled=False)
    return see_other_once(request, "key", shown_key(new, full_key, rolled_from=context.key), "workspaces",
                          context.workspace.id, "keys", "created")


@view_config(route_name="portal", context=KeyResource, name="ip-allow", request_method="GET",
             renderer=T + "ip_allow.jinja2", permission=MEMBER)
def ip_allow_page(context, request):
    return {"form": IpAllowForm({"ip_allow": "\n".join(context.key.ip_allow or ())}),
            "masked": masked(context.key.mode, context.key.key_id)}


@view_config(route_name="portal", context=KeyResource, name="ip-allow", request_method="POST",
             renderer=T + "ip_allow.jinja2", permission=MEMBER)
def set_ip_allow(context, request):
    form = IpAllowForm(request.POST)
    try:
        request.find_service(IKeyService).set_ip_allow(context.workspace.id, context.key, form["ip_allow"],
                                                       request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, masked=masked(context.key.mode, context.key.key_id))
    return see_other(request, "workspaces", context.workspace.id, "keys", changed=context.key.key_id)
