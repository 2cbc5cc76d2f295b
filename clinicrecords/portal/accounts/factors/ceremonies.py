"""A passkey ceremony's server-side values (its challenge, a new passkey's user handle) kept for this session
between the page that starts it and the POST that ends it: stashed with `IOneTimeReads`, read once."""

import base64
import uuid

from clinicrecords.portal.web.interfaces import IOneTimeReads


def stash(request, kind, **values):
    """Keep `values` (bytes, by name) for this session; the id the page's form posts back, as text."""
    encoded = {name: base64.urlsafe_b64encode(value).decode() for name, value in values.items()}
    return str(request.find_service(IOneTimeReads).put(kind, encoded))


def take(request, kind, read_id):
    """The values stashed as `kind` under `read_id` (text, as posted), deleted as they are read; None when the id
    is malformed, or the values were read already, expired, or are another session's."""
    try:
        read_id = uuid.UUID(read_id or "")
    except ValueError:
        return None
    stashed = request.find_service(IOneTimeReads).take(kind, read_id)
    if stashed is None:
        return None
    return {name: base64.urlsafe_b64decode(value) for name, value in stashed.items()}
