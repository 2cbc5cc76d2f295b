"""A workspace's month as a billing basis: its requests and connected clinics against what its plan includes.

Plans include a number of live requests and of connected clinics per calendar month (UTC), from the settings
`plans.paid.included_requests` and `plans.paid.included_clinics`. Only the paid plan is billed: beyond what it
includes is overage, counted and never enforced (spec: a live key is not interrupted mid-month). Live requests
are the basis; test requests reach only the synthetic sandbox and are reported, never billed. A sandbox-plan
workspace reaches no real clinic: it includes nothing and has no overage.

Other contexts (the developer portal's plan page) use `request.find_service(IUsageService)`.
"""

import datetime
import uuid
from dataclasses import dataclass

from sqlalchemy import func, or_, select
from zope.interface import Interface, implementer

from clinicrecords.access.models import Connection, Workspace
from clinicrecords.access.ratelimit import RATE_LIMITER
from clinicrecords.access.services import get_workspace

BILLED_PLAN = "paid"
# {plan: Allowance} from the settings, kept in the registry by clinicrecords.access.
ALLOWANCES = "access.allowances"


@dataclass(frozen=True)
class Allowance:
    """What a plan includes per month."""

    requests: int
    clinics: int


@dataclass(frozen=True)
class MonthUsage:
    workspace_id: uuid.UUID
    month: datetime.date  # the first day of the month
    plan: str  # the workspace's plan now
    billable: bool  # on the billed plan: overage is invoiced
    live_requests: int  # the billing basis
    test_requests: int
    connected_clinics: int  # connected at some moment of the month
    included_requests: int
    included_clinics: int
    overage_requests: int
    overage_clinics: int


class IUsageService(Interface):
    def month_usage(workspace_id, month):
        """The workspace's `MonthUsage` for `month` (a date; its day is ignored). `AccessError` when there is
        no such workspace."""

    def month_export(month):
        """A `MonthUsage` per workspace to invoice for the month, ordered by workspace id: every workspace on
        the paid plan, and every other one that made live requests or had connected clinics in it."""


def plan_allowances(settings):
    """{plan: Allowance} from the `plans.*` settings (a PlanSettings)."""
    paid = Allowance(requests=settings.paid_included_requests, clinics=settings.paid_included_clinics)
    return {BILLED_PLAN: paid, "sandbox": Allowance(requests=0, clinics=0)}


def month_bounds(month):
    """[start, end) of the calendar month (UTC) that `month` falls in."""
    start = datetime.datetime.combine(month.replace(day=1), datetime.time(), tzinfo=datetime.UTC)
    return start, (start + datetime.timedelta(days=32)).replace(day=1)


def _connected_during(start, end):
    """A connection granted before the month ends and neither revoked nor expired before it began."""
    return ((Connection.connected_at < end) & or_(Connection.revoked_at.is_(None), Connection.revoked_at >= start)
            & or_(Connection.expires_at.is_(None), Connection.expires_at >= start))


@implementer(IUsageService)
class UsageService:
    def __init__(self, db, limiter, allowances):
        self.db = db
        self.limiter = limiter
        self.allowances = allowances

    def month_usage(self, workspace_id, month):
        workspace = get_workspace(self.db, workspace_id)
        start, end = month_bounds(month)
        clinics = self.db.scalar(select(func.count()).select_from(Connection).where(
            Connection.workspace_id == workspace_id, _connected_during(start, end)))
        return self._usage(workspace.id, workspace.plan, start.date(), self.limiter.usage(workspace_id, start.date()),
                           clinics)

    def month_export(self, month):
        start, end = month_bounds(month)
        requests = self.limiter.month_usage(start.date())
        clinics = dict(self.db.execute(
            select(Connection.workspace_id, func.count()).where(_connected_during(start, end))
            .group_by(Connection.workspace_id)).all())
        workspaces = self.db.execute(select(Workspace.id, Workspace.plan).where(Workspace.created_at < end)
                                     .order_by(Workspace.id)).all()
        usages = (self._usage(row.id, row.plan, start.date(), requests.get(row.id, {"live": 0, "test": 0}),
                              clinics.get(row.id, 0)) for row in workspaces)
        return [usage for usage in usages if usage.billable or usage.live_requests or usage.connected_clinics]

    def _usage(self, workspace_id, plan, month, requests, clinics):
        allowance = self.allowances[plan]
        billable = plan == BILLED_PLAN
        return MonthUsage(
            workspace_id=workspace_id, month=month, plan=plan, billable=billable,
            live_requests=requests["live"], test_requests=requests["test"], connected_clinics=clinics,
            included_requests=allowance.requests, included_clinics=allowance.clinics,
            overage_requests=max(0, requests["live"] - allowance.requests) if billable else 0,
            overage_clinics=max(0, clinics - allowance.clinics) if billable else 0,
        )


def usage_service_factory(context, request):
    return UsageService(request.db, request.registry[RATE_LIMITER], request.registry[ALLOWANCES])
