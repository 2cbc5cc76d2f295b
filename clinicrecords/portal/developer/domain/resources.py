from clinicrecords.portal.developer.workspaces.resources import WorkspacePart


class DomainPage(WorkspacePart):
    """/workspaces/{id}/domain, with the actions `check` and `change` as view names."""
