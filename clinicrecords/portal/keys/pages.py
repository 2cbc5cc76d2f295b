"""The key pages both faces show, registered on a face's keys area by `add_key_pages`: the new secret once,
revoke (after a confirmation naming the key), roll with an overlap, the IP allow-list."""

from clinicrecords.access.interfaces import key_label, masked
from clinicrecords.portal.keys.forms import IpAllowForm, RollForm
from clinicrecords.portal.web.forms import FormError, rerender, see_other
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.reauth import Sensitive

T = "clinicrecords.portal.keys:templates/"


def shown_key(key, full_key, rolled_from=None):
    """What the page after a creation or a roll shows once (a one-time read: JSON, sealed)."""
    shown = {"mode": key.mode, "masked": masked(key.mode, key.key_id), "name": key.name, "scopes": key.scopes,
             "secret": full_key, "rolled_from": None}
    if rolled_from is not None:
        stops = None if rolled_from.revoked_at else rolled_from.expires_at  # revoked: it stopped at once
        shown["rolled_from"] = {"label": key_label(rolled_from),
                                "stops_at": stops.strftime("%Y-%m-%d %H:%M UTC") if stops else None}
    return shown


def created_once(request, area, key, full_key, rolled_from=None):
    """The redirect after a key is created or rolled: to the page that shows its secret once."""
    return see_other_once(request, "key", shown_key(key, full_key, rolled_from), *area.path, "created")


def revoked_notice(key):
    return {"title": f"Key {key_label(key)} revoked",
            "message": "It is refused from the next request on."}


def _name(context):
    return masked(context.key.mode, context.key.key_id)


def _service(context, request):
    return request.find_service(context.area.service)


def key_created(context, request):
    """The one page that carries a secret, once: never cached; a reload says it was shown once."""
    request.response.headers["Cache-Control"] = "no-store"
    request.response.headers["Pragma"] = "no-cache"
    shown = shown_once(request, "key")
    return {"shown": shown.value, "gone": shown.value is None}


def revoke_page(context, request):
    return {"masked": _name(context)}


def revoke(context, request):
    _service(context, request).revoke(context.area.owner_id, context.key, request.identity.account_id)
    return see_other_once(request, "notice", revoked_notice(context.key), *context.area.path)


def roll_page(context, request):
    return {"form": RollForm({"overlap": "24h"}), "masked": _name(context),
            "rolled": bool(_service(context, request).rolled([context.key]))}


def roll(context, request):
    form = RollForm(request.POST)
    try:
        new, full_key = _service(context, request).roll(context.area.owner_id, context.key, form["overlap"],
                                                        request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, masked=_name(context), rolled=False)
    return created_once(request, context.area, new, full_key, rolled_from=context.key)


def ip_allow_page(context, request):
    return {"form": IpAllowForm({"ip_allow": "\n".join(context.key.ip_allow or ())}), "masked": _name(context)}


def set_ip_allow(context, request):
    form = IpAllowForm(request.POST)
    try:
        _service(context, request).set_ip_allow(context.area.owner_id, context.key, form["ip_allow"],
                                                request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, masked=_name(context))
    return see_other(request, *context.area.path, changed=context.key.key_id)


def _live(context, request):
    return context.key.mode == "live"


# Rolling a live key makes a live key; the allow-list decides who may use a key: confirm it's you first.
ROLL_LIVE = Sensitive(when=_live)

# (view, on the area or on one key, view name, method, template, re-authentication)
PAGES = (
    (key_created, "area", "created", "GET", "created.jinja2", None),
    (revoke_page, "key", "revoke", "GET", "revoke.jinja2", None),
    (revoke, "key", "revoke", "POST", None, None),
    (roll_page, "key", "roll", "GET", "roll.jinja2", ROLL_LIVE),
    (roll, "key", "roll", "POST", "roll.jinja2", ROLL_LIVE),
    (ip_allow_page, "key", "ip-allow", "GET", "ip_allow.jinja2", True),
    (set_ip_allow, "key", "ip-allow", "POST", "ip_allow.jinja2", True),
)


def add_key_pages(config, area, permission):
    """The shared key pages on a face's keys area (a `KeysArea`; its keys: `area.item_resource`), held by
    `permission`."""
    for view, on, name, method, template, reauth in PAGES:
        config.add_view(view, route_name="portal", context=area if on == "area" else area.item_resource, name=name,
                        request_method=method, permission=permission, reauth=reauth,
                        **({"renderer": T + template} if template else {}))
