from clinicrecords.portal.web.forms import Form


class NewKeyForm(Form):
    fields = ("mode", "name", "access", "scopes", "ip_allow")


class RollForm(Form):
    fields = ("overlap",)


class IpAllowForm(Form):
    fields = ("ip_allow",)
