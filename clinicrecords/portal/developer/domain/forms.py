from clinicrecords.portal.web.forms import Form


class DomainForm(Form):
    fields = ("domain",)


class ChangeDomainForm(Form):
    """The domain again, and `confirm` once the member saw what changing it does."""

    fields = ("domain", "confirm")
