from clinicrecords.portal.developer.workspaces.resources import WorkspacePart


class ProfilePage(WorkspacePart):
    """/workspaces/{id}/profile"""
