"""The developer portal's face: a workspace's pages, rooted at `/workspaces` (`workspaces`: the member's list,
creation, overview, members, activity) with its areas (`add_workspace_child`): keys, terms, plan,
connections, domain, profile, requests, security. Staff accounts hold nothing here (the permission map)."""

AREAS = (
    ".workspaces",
    ".keys",
    ".terms",
    ".plan",
    ".connections",
    ".domain",
    ".profile",
    ".requests",
    ".security",
)


def includeme(config):
    for area in AREAS:
        config.include(area)
