from clinicrecords.portal.web.forms import Form


class InviteForm(Form):
    fields = ("email", "role")


class RoleForm(Form):
    fields = ("role",)


class CancelInvitationForm(Form):
    fields = ("invitation",)


class ConfirmForm(Form):
    """A button with nothing to type (leave, remove): its refusal is named by `field`."""

    fields = ()
