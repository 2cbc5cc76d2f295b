"""The plan page: this month's usage as the access context bills it (`IUsageService`: live requests and
connected clinics against what the plan includes, overage counted and never enforced) and the per-day
request counts for the chart; an owner chooses the plan."""

import calendar
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import PLANS, RATE_LIMITER, IUsageService
from clinicrecords.errors import InvalidInput
from clinicrecords.portal.developer.plan.interfaces import IPlanService
from clinicrecords.portal.web.interfaces import IPortalAudit


@implementer(IPlanService)
class PlanService:
    def __init__(self, db, usage, limiter, audit):
        self.db = db
        self.usage = usage
        self.limiter = limiter
        self.audit = audit

    def month(self, workspace_id, today):
        """(MonthUsage, [(date, requests of both modes)] for every day of the month up to today)."""
        month = today.replace(day=1)
        usage = self.usage.month_usage(workspace_id, month)
        daily = self.limiter.daily_usage(workspace_id, month, today)
        last = min(today.day, calendar.monthrange(month.year, month.month)[1])
        days = [month.replace(day=day) for day in range(1, last + 1)]
        return usage, [(day, daily.get(day, 0)) for day in days]

    def choose(self, workspace_id, plan, account_id):
        if plan not in PLANS:
            raise InvalidInput("Choose the sandbox or the paid plan")
        workspace = access.set_workspace(self.db, workspace_id, paid=plan == "paid")
        self.audit.record("plan.changed", account_id=account_id, workspace_id=workspace_id, target=plan)
        return workspace


def plan_service_factory(context, request):
    return PlanService(request.db, request.find_service(IUsageService), request.registry[RATE_LIMITER],
                       request.find_service(IPortalAudit))
