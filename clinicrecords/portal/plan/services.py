"""Plans and usage. A plan's included monthly requests and connected clinics come from settings
(`plans.<plan>.included_requests`, `plans.<plan>.included_clinics`); usage beyond them is overage, counted and
shown, never a reason to refuse a request (spec: Limits). Requests count both modes, as `usage show` does."""

import calendar
import datetime
from dataclasses import dataclass

from clinicrecords.access import services as access
from clinicrecords.access.models import PLANS
from clinicrecords.errors import InvalidInput

DEFAULT_ALLOWANCES = {"sandbox": (10_000, 0), "paid": (100_000, 10)}


@dataclass(frozen=True)
class Allowance:
    requests: int
    clinics: int


@dataclass(frozen=True)
class Usage:
    month: datetime.date
    plan: str
    allowance: Allowance
    live: int
    test: int
    clinics: int
    per_day: list  # (date, requests) for every day of the month up to today

    @property
    def requests(self):
        return self.live + self.test

    @property
    def request_overage(self):
        return max(0, self.requests - self.allowance.requests)

    @property
    def clinic_overage(self):
        return max(0, self.clinics - self.allowance.clinics)


def allowances(settings):
    found = {}
    for plan in PLANS:
        requests, clinics = DEFAULT_ALLOWANCES[plan]
        found[plan] = Allowance(int(settings.get(f"plans.{plan}.included_requests", requests)),
                                int(settings.get(f"plans.{plan}.included_clinics", clinics)))
    return found


class PlanService:
    def __init__(self, db, limiter, allowances, audit):
        self.db = db
        self.limiter = limiter
        self.allowances = allowances
        self.audit = audit

    def usage(self, workspace_id, today):
        workspace = access.get_workspace(self.db, workspace_id)
        month = today.replace(day=1)
        counts = self.limiter.usage(workspace_id, month)
        daily = self.limiter.daily_usage(workspace_id, month, today)
        last = min(today.day, calendar.monthrange(month.year, month.month)[1])
        per_day = [(month.replace(day=day), daily.get(month.replace(day=day), 0)) for day in range(1, last + 1)]
        return Usage(month, workspace.plan, self.allowances[workspace.plan], counts["live"], counts["test"],
                     access.connected_clinics(self.db, workspace_id, month), per_day)

    def choose(self, workspace_id, plan, account_id):
        if plan not in PLANS:
            raise InvalidInput("Choose the sandbox or the paid plan")
        workspace = access.set_workspace(self.db, workspace_id, paid=plan == "paid")
        self.audit.record("plan.changed", account_id=account_id, workspace_id=workspace_id, target=plan)
        return workspace


def plan_service_factory(settings):
    configured = allowances(settings)

    def factory(context, request):
        from clinicrecords.portal.web.interfaces import IPortalAudit

        return PlanService(request.db, request.registry["access.rate_limiter"], configured,
                           request.find_service(IPortalAudit))

    return factory
