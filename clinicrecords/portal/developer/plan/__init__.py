"""Plan and usage: the owner chooses sandbox or paid; the month's usage against the plan's allowance."""

from clinicrecords.portal.developer.plan.interfaces import IPlanService
from clinicrecords.portal.developer.plan.services import plan_service_factory
from clinicrecords.portal.developer.plan.views import PlanPage
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child


def includeme(config):
    config.register_service_factory(plan_service_factory, iface=IPlanService)
    add_workspace_child(config, "plan", PlanPage)
    config.scan(".views")
