"""Server-side forms, the GOV.UK way: what was typed is kept, each error is named by its field, and the page
shows a summary linking to the fields. A form that fails re-renders with status 400; nothing was written.

A form is the one place a portal view reads what was submitted, as a form's body or a page's query. Text no
field can take (a NUL, a lone surrogate) is refused here, field by field, so no service, query or log ever
meets it: the form records the field's message, and reading the form's values for use (`form[name]`,
`form.text(name)`, `form.data`) raises that FormError, which the view's own `except FormError` turns into its
page with the message (every portal view reads its form inside that `try`). Pages show what was typed with
`form.shown(name)`, the text without the characters that cannot be shown.
"""

import codecs
import re

from pyramid.httpexceptions import HTTPBadRequest, HTTPSeeOther

from clinicrecords.errors import FieldErrors

UNUSABLE_TEXT = "This contains a NUL character (a zero byte), which cannot be used here: remove it"
NOT_TEXT = "This contains characters that are not text (broken Unicode): type it again"


# Services (the identity context's among them) raise it without knowing of forms.
FormError = FieldErrors


def unusable(text):
    """Why submitted text cannot be used (a message), or None. A list is judged by its items."""
    if isinstance(text, (list, tuple)):
        return next(filter(None, map(unusable, text)), None)
    if not isinstance(text, str):
        return None
    if "\x00" in text:
        return UNUSABLE_TEXT
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return NOT_TEXT
    return None


def readable(text):
    """Submitted text as a page can show it again: without NUL characters and lone surrogates."""
    if isinstance(text, (list, tuple)):
        return [readable(item) for item in text]
    if not isinstance(text, str):
        return text
    return text.replace("\x00", "").encode("utf-8", "ignore").decode("utf-8")


class Form:
    """Submitted values and their errors. `fields` lists the form's field names in page order; those in
    `lists` take several values (checkboxes) and read as lists."""

    fields = ()
    lists = ()

    def __init__(self, values=None):
        values = values or {}
        self._typed, self._refused, self.errors = {}, {}, {}
        for name in self.fields:
            typed = self._read(values, name)
            problem = unusable(typed)
            if problem:
                self._refused[name] = self.errors[name] = problem
                typed = readable(typed)
            self._typed[name] = typed

    def _read(self, values, name):
        if name not in self.lists:
            return values.get(name, "")
        if hasattr(values, "getall"):
            return values.getall(name)
        return list(values.get(name) or ())

    def _usable(self):
        if self._refused:
            raise FormError(errors=self._refused)
        return self._typed

    def __getitem__(self, name):
        """The field's value for use; FormError when any field's text could not be used."""
        return self._usable().get(name, "")

    def text(self, name):
        return (self._usable().get(name) or "").strip()

    @property
    def data(self):
        """Every field's value for use (a new dict); FormError when any field's text could not be used."""
        return dict(self._usable())

    def shown(self, name):
        """The field as the page shows it again: what was typed, as far as it can be shown."""
        return self._typed.get(name, [] if name in self.lists else "")

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


class UnreadableForm(HTTPBadRequest):
    """A form's body the portal cannot read (a multipart body without its boundary, a charset other than UTF-8):
    its error page (400) says so, before any view or check has read a field."""


# RFC 2046's boundary: 1 to 70 characters of its set, not ending in a space (the multipart parser's own rule is
# looser, an empty one is what it refuses).
_BOUNDARY = re.compile(r"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _parameters(content_type):
    kind, *rest = content_type.split(";")
    parameters = {}
    for parameter in rest:
        name, _, value = parameter.partition("=")
        parameters[name.strip().lower()] = value.strip().strip('"')
    return kind.strip().lower(), parameters


def check_readable_body(request):
    """Raises UnreadableForm for a form's body the portal would fail to read: every portal form is UTF-8 (the
    pages say so), and a multipart body names its boundary."""
    kind, parameters = _parameters(request.headers.get("Content-Type", ""))
    if kind not in _FORM_TYPES:
        return
    charset = parameters.get("charset")
    if charset is not None:
        try:
            utf8 = codecs.lookup(charset).name == "utf-8"
        except LookupError:
            utf8 = False
        if not utf8:
            raise UnreadableForm("The form was sent in a character set other than UTF-8.")
    if kind == "multipart/form-data" and not _BOUNDARY.fullmatch(parameters.get("boundary", "")):
        raise UnreadableForm("The form was sent without a usable multipart boundary.")


def rerender(request, **values):
    """The page again, with the form's messages (the caller returns this dict to its renderer)."""
    request.response.status = 400
    return values


def see_other(request, *segments, **query):
    """After a successful POST: go to the result page (Post/Redirect/Get)."""
    return HTTPSeeOther(request.portal_url(*segments, **query))
