from clinicrecords.portal.web.forms import Form


class NewEndpointForm(Form):
    fields = ("mode", "url", "types")
    lists = ("types",)


class DeliveriesFilter(Form):
    """The deliveries log's filter and page (a GET form and its paging links)."""

    fields = ("status", "starting_after")


class ResendForm(Form):
    fields = ("delivery_id",)


class RotateForm(Form):
    fields = ("overlap",)


class RecoverForm(Form):
    fields = ("since",)
