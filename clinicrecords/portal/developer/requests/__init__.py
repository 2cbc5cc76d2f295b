"""The request log in the portal: the workspace's API requests of the last 7 days, newest first, filtered by
key, status and request id, in pages. Read from the request_log context's IRequestLog; never bodies or query
values (the log holds none)."""

from clinicrecords.portal.developer.requests.resources import RequestsPage
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child


def includeme(config):
    add_workspace_child(config, "requests", RequestsPage)
    config.scan(".views")
