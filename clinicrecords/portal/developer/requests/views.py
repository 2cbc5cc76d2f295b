from pyramid.view import view_config

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import key_label, masked
from clinicrecords.errors import InvalidInput
from clinicrecords.portal.developer.keys.interfaces import IKeyService
from clinicrecords.portal.developer.requests.forms import RequestFilter
from clinicrecords.portal.developer.requests.resources import RequestsPage
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.resources import MEMBER
from clinicrecords.request_log.interfaces import IRequestLog

T = "clinicrecords.portal.developer.requests:templates/"
PAGE_SIZE = 50


@view_config(route_name="portal", context=RequestsPage, request_method="GET", renderer=T + "requests.jinja2",
             permission=MEMBER)
def requests_page(context, request):
    form = RequestFilter(request.GET)
    keys = request.find_service(IKeyService).keys(context.workspace.id)
    found = {"form": form, "keys": [(key.key_id, _option(key)) for key in keys], "page": None, "masked": masked,
             "names": None}
    try:
        arguments = form.search_arguments({key.key_id for key in keys})
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **found)
    try:
        found["page"] = request.find_service(IRequestLog).search(context.workspace.id, limit=PAGE_SIZE,
                                                                 **arguments)
    except InvalidInput:  # a `before` cursor this log did not write
        form.error("before", "This page link is out of date: start again from the newest requests")
        return rerender(request, **found)
    rows = found["page"].rows
    found["names"] = access.display_names(request.db, clinic_ids={row.clinic_id for row in rows if row.clinic_id},
                                          key_ids={row.key_id for row in rows})  # one statement for the page
    return found


def _option(key):
    label = key_label(key)
    return label if not key.name else f"{label} ({masked(key.mode, key.key_id)})"
