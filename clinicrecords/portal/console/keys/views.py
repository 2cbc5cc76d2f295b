from pyramid.view import view_config

from clinicrecords.access.interfaces import masked
from clinicrecords.portal.console.keys.interfaces import IClinicKeyService
from clinicrecords.portal.console.keys.resources import ClinicKey, ClinicKeys
from clinicrecords.portal.developer.keys.forms import IpAllowForm, NewKeyForm, RollForm
from clinicrecords.portal.developer.keys.views import revoked_notice, secret_page, shown_key
from clinicrecords.portal.web.forms import FormError, rerender, see_other
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.resources import CLINIC_ADMIN

T = "clinicrecords.portal.console.keys:templates/"


def _name(context):
    return masked(context.key.mode, context.key.key_id)


@view_config(route_name="portal", context=ClinicKeys, request_method="GET", renderer=T + "list.jinja2",
             permission=CLINIC_ADMIN)
def keys(context, request):
    service = request.find_service(IClinicKeyService)
    keys = service.keys(context.clinic.id)
    return {"keys": keys, "rolled": service.rolled(keys), "masked": masked, "form": NewKeyForm(),
            "notice": shown_once(request, "notice").value}


@view_config(route_name="portal", context=ClinicKeys, name="created", request_method="GET",
             renderer=T + "created.jinja2", permission=CLINIC_ADMIN)
def key_created(context, request):
    return secret_page(request)


@view_config(route_name="portal", context=ClinicKeys, name="new", request_method="POST",
             renderer=T + "list.jinja2", permission=CLINIC_ADMIN)
def create_key(context, request):
    form = NewKeyForm(request.POST)
    service = request.find_service(IClinicKeyService)
    try:
        key, full_key = service.create(context.clinic.id, form["ip_allow"], request.identity.account_id,
                                       name_text=form["name"])
    except FormError as exc:
        form.refused(exc)
        keys = service.keys(context.clinic.id)
        return rerender(request, keys=keys, rolled=service.rolled(keys), masked=masked, form=form, notice=None)
    return see_other_once(request, "key", shown_key(key, full_key), "clinics", context.clinic.id, "keys", "created")


@view_config(route_name="portal", context=ClinicKey, name="revoke", request_method="GET",
             renderer=T + "revoke.jinja2", permission=CLINIC_ADMIN)
def revoke_page(context, request):
    return {"masked": _name(context)}


@view_config(route_name="portal", context=ClinicKey, name="revoke", request_method="POST", permission=CLINIC_ADMIN)
def revoke(context, request):
    request.find_service(IClinicKeyService).revoke(context.clinic.id, context.key,
                                                   request.identity.account_id)
    return see_other_once(request, "notice", revoked_notice(context.key), "clinics", context.clinic.id, "keys")


@view_config(route_name="portal", context=ClinicKey, name="roll", request_method="GET",
             renderer=T + "roll.jinja2", permission=CLINIC_ADMIN)
def roll_page(context, request):
    return {"form": RollForm({"overlap": "24h"}), "masked": _name(context),
            "rolled": bool(request.find_service(IClinicKeyService).rolled([context.key]))}


@view_config(route_name="portal", context=ClinicKey, name="roll", request_method="POST",
             renderer=T + "roll.jinja2", permission=CLINIC_ADMIN)
def roll(context, request):
    form = RollForm(request.POST)
    try:
        new, full_key = request.find_service(IClinicKeyService).roll(
            context.clinic.id, context.key, form["overlap"], request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, masked=_name(context), rolled=False)
    return see_other_once(request, "key", shown_key(new, full_key, rolled_from=context.key), "clinics",
                          context.clinic.id, "keys", "created")


@view_config(route_name="portal", context=ClinicKey, name="ip-allow", request_method="GET",
             renderer=T + "ip_allow.jinja2", permission=CLINIC_ADMIN)
def ip_allow_page(context, request):
    return {"form": IpAllowForm({"ip_allow": "\n".join(context.key.ip_allow or ())}),
            "masked": _name(context)}


@view_config(route_name="portal", context=ClinicKey, name="ip-allow", request_method="POST",
             renderer=T + "ip_allow.jinja2", permission=CLINIC_ADMIN)
def set_ip_allow(context, request):
    form = IpAllowForm(request.POST)
    try:
        request.find_service(IClinicKeyService).set_ip_allow(context.clinic.id, context.key, form["ip_allow"],
                                                             request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, masked=_name(context))
    return see_other(request, "clinics", context.clinic.id, "keys", changed=context.key.key_id)
