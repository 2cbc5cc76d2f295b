from clinicrecords.portal.web.forms import Form


class WorkspaceForm(Form):
    fields = ("name",)


class InviteForm(Form):
    fields = ("email", "role")
