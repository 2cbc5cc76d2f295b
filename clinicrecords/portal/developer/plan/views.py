from pyramid.view import view_config

from clinicrecords import clock
from clinicrecords.errors import InvalidInput
from clinicrecords.portal.developer.plan.chart import chart
from clinicrecords.portal.developer.plan.interfaces import IPlanService
from clinicrecords.portal.web.forms import Form, rerender, see_other
from clinicrecords.portal.web.resources import MEMBER, OWNER
from clinicrecords.portal.developer.workspaces.resources import WorkspacePart

T = "clinicrecords.portal.developer.plan:templates/"


class PlanPage(WorkspacePart):
    """/workspaces/{id}/plan"""


class PlanForm(Form):
    fields = ("plan",)


def _page(context, request, form):
    today = clock.now().date()
    usage, per_day = request.find_service(IPlanService).month(context.workspace.id, today)
    return {"usage": usage, "chart": chart(per_day), "form": form or PlanForm({"plan": usage.plan})}


@view_config(route_name="portal", context=PlanPage, request_method="GET", renderer=T + "plan.jinja2",
             permission=MEMBER)
def plan_page(context, request):
    return _page(context, request, None)


@view_config(route_name="portal", context=PlanPage, request_method="POST", renderer=T + "plan.jinja2",
             permission=OWNER)
def choose_plan(context, request):
    form = PlanForm(request.POST)
    try:
        request.find_service(IPlanService).choose(context.workspace.id, form["plan"], request.identity.account_id)
    except InvalidInput as exc:
        form.error("plan", str(exc))
        return rerender(request, **_page(context, request, form))
    return see_other(request, "workspaces", context.workspace.id, "plan", changed=1)
