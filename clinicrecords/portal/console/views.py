"""The console's root pages: a staff account's home (its first clinic), a clinic's overview, its activity."""

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.view import view_config

from clinicrecords.portal.console.interfaces import IConsoleService
from clinicrecords.portal.console.resources import ClinicActivity, ClinicResource, ClinicsCollection
from clinicrecords.portal.web.resources import CLINIC_ADMIN, CLINIC_STAFF, SIGNED_IN, PortalRoot

T = "clinicrecords.portal.console:templates/"


@view_config(route_name="portal", context=PortalRoot, request_method="GET", staff_account=True,
             permission=SIGNED_IN)
def staff_home(context, request):
    first = request.find_service(IConsoleService).memberships(request.identity.account_id)[0]
    return HTTPSeeOther(request.portal_url("clinics", first.clinic.id))


@view_config(route_name="portal", context=ClinicsCollection, request_method="GET", permission=SIGNED_IN)
def clinics_index(context, request):
    return HTTPSeeOther(request.portal_url(""))


@view_config(route_name="portal", context=ClinicResource, request_method="GET",
             renderer=T + "overview.jinja2",
             permission=CLINIC_STAFF)
def overview(context, request):
    return {"others": [m for m in request.find_service(IConsoleService).memberships(request.identity.account_id)
                       if m.clinic.id != context.clinic.id]}


@view_config(route_name="portal", context=ClinicActivity, request_method="GET", renderer=T + "activity.jinja2",
             permission=CLINIC_ADMIN)
def activity(context, request):
    return {"entries": request.find_service(IConsoleService).activity(context.clinic.id)}
