from zope.interface import Interface


class IConnectionsView(Interface):
    """The clinics a workspace reaches, and what each granted, as one table."""

    def table(workspace_id):
        """A `ConnectionTable`: a row per connection and the union of the permissions granted (its columns)."""
