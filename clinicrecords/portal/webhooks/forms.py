from clinicrecords.portal.web.forms import Form


class NewEndpointForm(Form):
    fields = ("mode", "url", "types")

    def __init__(self, values=None):
        super().__init__(values)
        chosen = values.getall("types") if hasattr(values, "getall") else (values or {}).get("types", ())
        self.values["types"] = list(chosen or ())


class RotateForm(Form):
    fields = ("overlap",)


class RecoverForm(Form):
    fields = ("since",)
