from pyramid.view import view_config

from clinicrecords.portal.console.auto_accept.interfaces import IAutoAcceptSettings
from clinicrecords.portal.console.auto_accept.resources import AutoAcceptPage
from clinicrecords.portal.web.forms import Form, FormError, rerender, see_other
from clinicrecords.portal.web.resources import CLINIC_ADMIN

T = "clinicrecords.portal.console.auto_accept:templates/"


class SenderForm(Form):
    """Resuming one kind for one sender."""

    fields = ("kinds", "sender")


class KindsForm(SenderForm):
    """The kinds ticked for one sender."""

    lists = ("kinds",)


def _page(context, request, form=None):
    service = request.find_service(IAutoAcceptSettings)
    threshold, window = service.pause_rule()
    return {"senders": service.senders(context.clinic.id), "kinds": service.kinds(),
            "form": form or SenderForm(),
            "threshold": threshold, "window": window}


@view_config(route_name="portal", context=AutoAcceptPage, request_method="GET",
             renderer=T + "settings.jinja2",
             permission=CLINIC_ADMIN)
def settings(context, request):
    return _page(context, request)


@view_config(route_name="portal", context=AutoAcceptPage, name="save", request_method="POST",
             renderer=T + "settings.jinja2", permission=CLINIC_ADMIN)
def save(context, request):
    form = KindsForm(request.POST)
    try:
        request.find_service(IAutoAcceptSettings).save(context.clinic.id, form.text("sender"), form["kinds"],
                                                       request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_page(context, request, form))
    return see_other(request, "clinics", context.clinic.id, "auto-accept", saved=form.text("sender"))


@view_config(route_name="portal", context=AutoAcceptPage, name="resume", request_method="POST",
             renderer=T + "settings.jinja2", permission=CLINIC_ADMIN)
def resume(context, request):
    form = SenderForm(request.POST)
    try:
        request.find_service(IAutoAcceptSettings).resume(context.clinic.id, form.text("sender"),
                                                         form.text("kinds"),
                                                         request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_page(context, request, form))
    return see_other(request, "clinics", context.clinic.id, "auto-accept", resumed=form.text("sender"))
