from pyramid.view import view_config

from clinicrecords.errors import InvalidInput
from clinicrecords.identity.services import ITermsService
from clinicrecords.portal.web.forms import Form, FormError, rerender, see_other
from clinicrecords.portal.web.resources import MEMBER, OWNER
from clinicrecords.portal.developer.workspaces.resources import WorkspacePart

T = "clinicrecords.portal.developer.terms:templates/"


class TermsPage(WorkspacePart):
    """/workspaces/{id}/terms"""


class AcceptForm(Form):
    fields = ("version", "agree")


def _page(context, request, form):
    terms = request.find_service(ITermsService)
    return {"version": terms.current_version, "text": terms.text(), "latest": terms.latest(context.workspace.id),
            "accepted": terms.accepted_current(context.workspace.id), "form": form}


@view_config(route_name="portal", context=TermsPage, request_method="GET", renderer=T + "terms.jinja2",
             permission=MEMBER)
def terms_page(context, request):
    return _page(context, request, AcceptForm())


@view_config(route_name="portal", context=TermsPage, request_method="POST", renderer=T + "terms.jinja2",
             permission=OWNER)
def accept_terms(context, request):
    form = AcceptForm(request.POST)
    try:
        if form["agree"] != "yes":
            raise FormError("agree", "Tick the box to accept the API Terms for your organization")
        request.find_service(ITermsService).accept(context.workspace.id, request.identity.account_id,
                                                   form["version"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_page(context, request, form))
    except InvalidInput as exc:
        form.error("agree", str(exc))
        return rerender(request, **_page(context, request, form))
    return see_other(request, "workspaces", context.workspace.id, "terms", accepted=1)
