from clinicrecords.portal.web.forms import Form


class WorkspaceForm(Form):
    fields = ("name",)


class CloseForm(Form):
    """The workspace's name, typed to confirm its closing."""

    fields = ("name",)
