from clinicrecords.portal.web.forms import Form


class JoinForm(Form):
    fields = ("password",)
