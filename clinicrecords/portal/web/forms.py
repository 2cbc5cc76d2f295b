"""Server-side forms, the GOV.UK way: what was typed is kept, each error is named by its field, and the page
shows a summary linking to the fields. A form that fails re-renders with status 400; nothing was written."""

from pyramid.httpexceptions import HTTPSeeOther

from clinicrecords.errors import InvalidInput


class FormError(InvalidInput):
    """Input a service refuses, per field (`errors`: field → message); nothing was written. Raised with one
    field and message, or with every problem found at once (`FormError(errors={...})`)."""

    def __init__(self, field=None, message=None, errors=None):
        self.errors = dict(errors or {field: message})
        super().__init__("; ".join(self.errors.values()))


class Form:
    """Submitted values and their errors. `fields` lists the form's field names in page order."""

    fields = ()

    def __init__(self, values=None):
        values = values or {}
        self.values = {name: values.get(name, "") for name in self.fields}
        self.errors = {}

    def __getitem__(self, name):
        return self.values.get(name, "")

    def text(self, name):
        return (self.values.get(name) or "").strip()

    def error(self, name, message):
        self.errors.setdefault(name, message)

    def refused(self, exc):
        """Take a service's FormError onto the form; returns the form."""
        for name, message in exc.errors.items():
            self.error(name, message)
        return self

    @property
    def valid(self):
        return not self.errors

    @property
    def summary(self):
        """(field, message) in the order the fields appear."""
        ordered = [name for name in self.fields if name in self.errors]
        return [(name, self.errors[name]) for name in ordered + [n for n in self.errors if n not in ordered]]


def rerender(request, **values):
    """The page again, with the form's messages (the caller returns this dict to its renderer)."""
    request.response.status = 400
    return values


def see_other(request, *segments, **query):
    """After a successful POST: go to the result page (Post/Redirect/Get)."""
    return HTTPSeeOther(request.portal_url(*segments, **query))
