from pyramid.view import view_config

from clinicrecords.identity.services import IFactorService, IMembershipService
from clinicrecords.portal.developer.workspaces.resources import WorkspacePart
from clinicrecords.portal.web.forms import Form, FormError, rerender, see_other
from clinicrecords.portal.web.resources import MEMBER, OWNER

T = "clinicrecords.portal.developer.security:templates/"


class SecurityPage(WorkspacePart):
    """/workspaces/{id}/security"""


class RuleForm(Form):
    fields = ("required",)


def _page(context, request, form):
    factors = request.find_service(IFactorService)
    members = request.find_service(IMembershipService).workspace_members(context.workspace.id)
    with_factor = factors.accounts_with_second_factor([member.account_id for member in members])
    return {"form": form, "required": factors.workspace_requires(context.workspace.id),
            "members": [(member, member.account_id in with_factor) for member in members]}


@view_config(route_name="portal", context=SecurityPage, request_method="GET", renderer=T + "security.jinja2",
             permission=MEMBER)
def security_page(context, request):
    return _page(context, request, RuleForm())


@view_config(route_name="portal", context=SecurityPage, request_method="POST", renderer=T + "security.jinja2",
             permission=OWNER)
def set_rule(context, request):
    form = RuleForm(request.POST)
    try:
        request.find_service(IFactorService).set_workspace_rule(context.workspace.id, request.identity.account_id,
                                                                form["required"] == "yes")
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_page(context, request, form))
    return see_other(request, "workspaces", context.workspace.id, "security", saved=1)
