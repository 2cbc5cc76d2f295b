from clinicrecords.portal.workspaces.resources import WorkspacePart


class ProfilePage(WorkspacePart):
    """/workspaces/{id}/profile"""
