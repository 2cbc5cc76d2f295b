from zope.interface import Interface


class IPlanService(Interface):
    """A workspace's plan, its monthly allowance and this month's usage against it."""

    def month(workspace_id, today):
        """(MonthUsage, [(date, requests of both modes)] for every day of the month up to today)."""

    def choose(workspace_id, plan, account_id):
        """Change the workspace's plan (audited); InvalidInput on an unknown plan."""
