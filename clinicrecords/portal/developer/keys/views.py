from pyramid.view import view_config

from clinicrecords.access.interfaces import ALL_PERMISSIONS, masked
from clinicrecords.portal.developer.keys.interfaces import IKeyService, ILiveKeyGate
from clinicrecords.portal.developer.keys.resources import KeysCollection
from clinicrecords.portal.keys.forms import NewKeyForm
from clinicrecords.portal.keys.pages import created_once
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.once import shown_once
from clinicrecords.portal.web.reauth import Sensitive
from clinicrecords.portal.web.resources import MEMBER

T = "clinicrecords.portal.developer.keys:templates/"


@view_config(route_name="portal", context=KeysCollection, request_method="GET", renderer=T + "list.jinja2",
             permission=MEMBER)
def keys(context, request):
    service = request.find_service(IKeyService)
    keys = service.keys(context.workspace.id)
    return {"keys": keys, "rolled": service.rolled(keys), "masked": masked,
            "notice": shown_once(request, "notice").value}


def _new_key_page(context, request, form):
    gate = request.find_service(ILiveKeyGate).acting(request.identity.account_id)
    return {"form": form, "checklist": gate.checklist(context.workspace.id),
            "permissions": sorted(ALL_PERMISSIONS), "ticked": set(request.POST.getall("scopes"))}


def _asks_live(context, request):
    """A live key is asked for: its page (`?mode=live`) or its form."""
    return (NewKeyForm(request.POST).shown("mode") if request.method == "POST" else request.GET.get("mode")) == "live"


def _live_key_form(context, request):
    return context.url("new", mode="live")


@view_config(route_name="portal", context=KeysCollection, name="new", request_method="GET",
             renderer=T + "new.jinja2", permission=MEMBER, reauth=Sensitive(when=_asks_live))
def new_key_page(context, request):
    mode = request.params.get("mode")
    return _new_key_page(context, request, NewKeyForm({"mode": mode if mode in ("test", "live") else "test",
                                                       "access": "all"}))


@view_config(route_name="portal", context=KeysCollection, name="new", request_method="POST",
             renderer=T + "new.jinja2", permission=MEMBER, reauth=Sensitive(when=_asks_live, form=_live_key_form))
def create_key(context, request):
    form = NewKeyForm(request.POST)
    try:
        key, full_key = request.find_service(IKeyService).create(
            context.workspace.id, form["mode"], form["ip_allow"], request.identity.account_id, name_text=form["name"],
            access_choice=form["access"], ticked=request.POST.getall("scopes"))
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_new_key_page(context, request, form))
    return created_once(request, context, key, full_key)
