import uuid

from pyramid.httpexceptions import HTTPNotFound
from pyramid.response import Response
from pyramid.view import view_config

from clinicrecords.portal.console.access_report.interfaces import IAccessReport
from clinicrecords.portal.console.access_report.resources import AccessReportPage
from clinicrecords.portal.web.forms import Form, FormError, rerender
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.portal.web.resources import CLINIC_ADMIN

T = "clinicrecords.portal.console.access_report:templates/"


class PatientForm(Form):
    fields = ("patient",)


def _patient(context, request):
    """The patient the query names by id, or None when no id was given; 404 for an unknown id."""
    text = (request.params.get("patient_id") or "").strip()
    if not text:
        return None
    try:
        patient_id = uuid.UUID(text)
    except ValueError:
        raise HTTPNotFound() from None
    patient = request.find_service(IAccessReport).patient(context.clinic.id, patient_id)
    if patient is None:
        raise HTTPNotFound()
    return patient


@view_config(route_name="portal", context=AccessReportPage, request_method="GET",
             renderer=T + "report.jinja2",
             permission=CLINIC_ADMIN)
def report(context, request):
    service = request.find_service(IAccessReport)
    form = PatientForm(request.params)
    page = {"form": form, "matches": None, "patient": _patient(context, request), "accesses": None}
    if page["patient"] is not None:
        page["accesses"] = service.accesses(context.clinic.id, page["patient"].id)
    elif "patient" in request.params:
        try:
            page["matches"] = service.patients(context.clinic.id, form["patient"])
        except FormError as exc:
            form.refused(exc)
            return rerender(request, **page)
    return page


@view_config(route_name="portal", context=AccessReportPage, name="export.csv", request_method="GET",
             permission=CLINIC_ADMIN)
def export(context, request):
    patient = _patient(context, request)
    if patient is None:
        raise HTTPNotFound()
    service = request.find_service(IAccessReport)
    body = service.csv(service.accesses(context.clinic.id, patient.id))
    request.find_service(IPortalAudit).record("access_report.downloaded",
                                              account_id=request.identity.account_id,
                                              clinic_id=context.clinic.id, target=str(patient.id))
    response = Response(text=body, content_type="text/csv", charset="utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="access-report-{patient.id}.csv"'
    return response
