"""Clinic Records API client."""

from clinicrecords_client.client import Client, TestHelpers
from clinicrecords_client.errors import (ApiError, Conflict, Forbidden, InvalidRequest, NotFound, RateLimited,
                                         ServerError, Unauthorized)
from clinicrecords_client.webhooks import WebhookVerificationError, verify_webhook

__all__ = ["ApiError", "Client", "Conflict", "Forbidden", "InvalidRequest", "NotFound", "RateLimited",
           "ServerError", "TestHelpers", "Unauthorized", "WebhookVerificationError", "verify_webhook"]
