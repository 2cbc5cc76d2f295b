from clinicrecords.portal.web.forms import FormError


def form_error(field, exc):
    """A rule of another context that refused (its message begins in lower case, as the CLI prints it) as the
    form's message for `field`."""
    text = str(exc)
    return FormError(field, text[:1].upper() + text[1:])
