"""Plan and usage: the owner chooses sandbox or paid; the month's usage against the plan's allowance."""

from clinicrecords.portal.plan.interfaces import IPlanService
from clinicrecords.portal.plan.services import plan_service_factory
from clinicrecords.portal.plan.views import PlanPage


def includeme(config):
    config.register_service_factory(plan_service_factory(config.get_settings()), iface=IPlanService)
    config.add_workspace_child("plan", PlanPage)
    config.scan(".views")
