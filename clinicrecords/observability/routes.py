"""The route template a request's path fits, as `clinicrecords-admin CONFIG routes` prints it: the bounded
set of `route` label values. A tree of the templates' segments, a literal before a `{parameter}` (so
`/patients/search` wins over `/patients/{patient_id}`): a handful of dictionary lookups per request."""

from clinicrecords.api.route_table import route_table

UNMATCHED = "unmatched"
_PARAMETER = "{}"


class RouteTemplates:
    def __init__(self, templates):
        self._root = {}
        for template in templates:
            node = self._root
            for segment in _segments(template):
                node = node.setdefault(_PARAMETER if segment.startswith("{") else segment, {})
            node.setdefault(None, template)

    @classmethod
    def of(cls, registry):
        return cls({route.path for route in route_table(registry)})

    def match(self, path):
        """The template `path` fits, or `UNMATCHED`."""
        segments = _segments(path)
        found = _match(self._root, segments, 0)
        if found is None and len(segments) > 1 and not segments[-1]:
            found = _match(self._root, segments[:-1], 0)  # traversal answers `/v1/clinics/` as `/v1/clinics`
        return UNMATCHED if found is None else found


def _segments(path):
    # "/portal/" (a tree's root page) is one empty segment, "/" none.
    return path[1:].split("/") if path not in ("", "/") else []


def _match(node, segments, position):
    if position == len(segments):
        return node.get(None)
    segment = segments[position]
    child = node.get(segment)
    if child is not None:
        found = _match(child, segments, position + 1)
        if found is not None:
            return found
    child = node.get(_PARAMETER)
    if child is not None and segment:
        return _match(child, segments, position + 1)
    return None
