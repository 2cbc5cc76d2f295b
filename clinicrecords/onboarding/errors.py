"""What onboarding refuses: a business profile's wrong fields, a domain check asked for too soon."""

from clinicrecords.errors import InvalidInput


class ProfileInvalid(InvalidInput):
    """Some fields are wrong; `errors` maps each field to its message (for a form to show beside it)."""

    def __init__(self, errors):
        self.errors = errors
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))


class CheckRefused(InvalidInput):
    """A check of this workspace is running, or the last one was too recent; `retry_after`: how long to wait."""

    def __init__(self, message, retry_after):
        super().__init__(message)
        self.retry_after = retry_after
