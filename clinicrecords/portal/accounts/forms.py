import re

from clinicrecords.portal.surface import PORTAL_PREFIX
from clinicrecords.portal.web.forms import Form


class SignUpForm(Form):
    fields = ("email", "password")


class LogInForm(Form):
    fields = ("email", "password")


class PasswordForm(Form):
    fields = ("current_password", "new_password")


class ForgotPasswordForm(Form):
    fields = ("email",)


class ResetPasswordForm(Form):
    fields = ("token", "password")


class VerifyEmailForm(Form):
    fields = ("token",)


class EmailForm(Form):
    fields = ("email", "password")


class ConfirmForm(Form):
    """"Confirm it's you": which method, where to go next, and the method's own fields (`for_method`)."""

    fields = ("method", "next")

    @classmethod
    def for_method(cls, method_fields):
        return type("ConfirmForm", (cls,), {"fields": cls.fields + tuple(method_fields)})


class EndSessionForm(Form):
    fields = ("session_id",)


class NotificationsForm(Form):
    fields = ("notify",)
    lists = ("notify",)


# A path and query as a browser sends them: RFC 3986's unreserved and sub-delims characters, ":", "@", "/",
# "?" and percent-escapes. Nothing else goes into a Location header (no CR or LF, no space, no backslash,
# nothing beyond ASCII).
_PATH_AND_QUERY = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2}")
# "." and ".." segments, also percent-escaped: the browser resolves them, so "/portal/../v1" leaves the portal.
_DOT_SEGMENT = re.compile(r"(?:^|/)(?:\.|%2e){1,2}(?:/|\?|$)", re.IGNORECASE)


def kept_next(request):
    """The `next` a sign-in page carries on to its form: the one asked for if it is usable, else none."""
    target = request.params.get("next")
    return target if target and safe_next(request, target) == target else ""


def safe_next(request, target):
    """Where to go after logging in: only a path of the portal itself (never another site, never another
    header); anything else leads to the portal's home page."""
    home = request.portal_url("")
    prefix = request.registry[PORTAL_PREFIX] + "/"
    if (target and target.startswith(prefix) and not target.startswith("//")
            and _PATH_AND_QUERY.sub("", target) == "" and not _DOT_SEGMENT.search(target.partition("?")[0])):
        return target
    return home
