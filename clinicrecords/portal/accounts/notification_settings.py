"""/account/notifications: which notifications the signed-in person gets (every one is on until they turn it
off). A person sees the notifications of their face: a partner's workspace, or a clinic's staff."""

from pyramid.view import view_config

from clinicrecords.notifications.interfaces import CLINIC, WORKSPACE, INotificationSettings, kinds_of
from clinicrecords.portal.accounts.forms import NotificationsForm
from clinicrecords.portal.accounts.resources import NotificationsPage
from clinicrecords.portal.web.forms import FormError, rerender, see_other
from clinicrecords.portal.web.resources import SIGNED_IN
from clinicrecords.portal.web.security import is_staff

TEMPLATE = "clinicrecords.portal.accounts:templates/notifications.jinja2"


def _face(request):
    return CLINIC if is_staff(request, request.identity) else WORKSPACE


def _page(request, form, checked):
    options = [(kind.name, kind.label, kind.hint) for kind in kinds_of(_face(request))]
    return {"form": form, "options": options, "checked": checked, "saved": bool(request.GET.get("saved"))}


@view_config(route_name="portal", context=NotificationsPage, request_method="GET", renderer=TEMPLATE,
             permission=SIGNED_IN)
def notifications_page(context, request):
    enabled = request.find_service(INotificationSettings).enabled(request.identity.account_id)
    return _page(request, NotificationsForm(), enabled)


@view_config(route_name="portal", context=NotificationsPage, request_method="POST", renderer=TEMPLATE,
             permission=SIGNED_IN)
def choose_notifications(context, request):
    form = NotificationsForm(request.POST)
    try:
        request.find_service(INotificationSettings).choose(request.identity.account_id, _face(request),
                                                           form["notify"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_page(request, form, set(form.shown("notify"))))
    return see_other(request, "account", "notifications", saved=1)
