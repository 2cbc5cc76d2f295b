"""What a webhook operation refuses: the errors the endpoints' services raise and the portal reads."""

from clinicrecords.errors import InvalidInput


class WebhookError(InvalidInput):
    """Bad input for a webhook operation; nothing was written. `code` is stable (pages and problem
    documents key on it); `field` names the form field at fault, if one is."""

    def __init__(self, message, code="invalid_webhook", field=None):
        super().__init__(message)
        self.code = code
        self.field = field


class EndpointNotFound(WebhookError):
    def __init__(self, endpoint_id):
        super().__init__(f"no webhook endpoint {endpoint_id}", "not_found")
