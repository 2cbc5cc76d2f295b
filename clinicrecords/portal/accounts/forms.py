from clinicrecords.portal.web.forms import Form


class SignUpForm(Form):
    fields = ("email", "password")


class LogInForm(Form):
    fields = ("email", "password")


class PasswordForm(Form):
    fields = ("current_password", "new_password")


def safe_next(request, target):
    """Where to go after logging in: only a path of the portal itself (never another site)."""
    home = request.portal_url("")
    prefix = request.registry["portal.prefix"] + "/"
    if target and target.startswith(prefix) and not target.startswith("//") and "\\" not in target:
        return target
    return home
