from pyramid.view import view_config

from clinicrecords.access.interfaces import masked
from clinicrecords.portal.console.keys.interfaces import IClinicKeyService
from clinicrecords.portal.console.keys.resources import ClinicKeys
from clinicrecords.portal.keys.forms import NewKeyForm
from clinicrecords.portal.keys.pages import created_once
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.once import shown_once
from clinicrecords.portal.web.reauth import Sensitive
from clinicrecords.portal.web.resources import CLINIC_ADMIN

T = "clinicrecords.portal.console.keys:templates/"


@view_config(route_name="portal", context=ClinicKeys, request_method="GET", renderer=T + "list.jinja2",
             permission=CLINIC_ADMIN)
def keys(context, request):
    service = request.find_service(IClinicKeyService)
    keys = service.keys(context.clinic.id)
    return {"keys": keys, "rolled": service.rolled(keys), "masked": masked, "form": NewKeyForm(),
            "notice": shown_once(request, "notice").value}


def _keys_page(context, request):
    return context.url()


# The clinic's own key is always live.
@view_config(route_name="portal", context=ClinicKeys, name="new", request_method="POST",
             renderer=T + "list.jinja2", permission=CLINIC_ADMIN, reauth=Sensitive(form=_keys_page))
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
    return created_once(request, context, key, full_key)
