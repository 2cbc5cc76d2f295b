class InvalidInput(ValueError):
    """Input an operator or a service call got wrong. Nothing was written; the message says what to fix."""


class FieldErrors(InvalidInput):
    """Input a service refuses, per field (`errors`: field → message); nothing was written. Raised with one
    field and message, or with every problem found at once (`FieldErrors(errors={...})`). The portal's forms
    show each message by its field (`portal.web.forms.FormError` is this class)."""

    def __init__(self, field=None, message=None, errors=None):
        self.errors = dict(errors or {field: message})
        super().__init__("; ".join(self.errors.values()))
