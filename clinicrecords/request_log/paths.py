"""What of a request's path the request log keeps: route words and record ids, nothing else.

Record ids (uuids) are kept as they are: they are opaque, the key's owner can read them through the API
anyway, and they say which record a request touched. Any other segment (a name typed where an id belongs, a
key pasted into the URL) is replaced by `{redacted}`: a path can carry anything a caller puts there, and
the log must never hold patient data. The query string is never looked at.
"""

import re

from clinicrecords.api.routes import nodes, operations

REDACTED = "{redacted}"
MAX_PATH = 500
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")


def route_words(registry):
    """Every literal segment of every documented route (`v1`, `clinics`, `allergies`, view names)."""
    templates = [node.path for node in nodes(registry)] + [op.path for op in operations(registry)]
    return frozenset(segment for template in templates for segment in template.split("/")
                     if segment and not segment.startswith("{"))


def kept_path(path, words):
    segments = []
    for segment in path.split("/"):
        if segment and segment not in words:
            segment = segment.lower() if _UUID.match(segment) else REDACTED
        segments.append(segment)
    kept = "/".join(segments)
    return kept if len(kept) <= MAX_PATH else kept[:MAX_PATH - 1] + "…"
