from clinicrecords.portal.web.forms import Form


class StaffInviteForm(Form):
    fields = ("email", "role")
