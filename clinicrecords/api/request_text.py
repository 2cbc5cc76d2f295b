"""A path or query string that is not UTF-8 text cannot name a resource or a parameter: it is answered
here (404 / 400 problem+json) before anything decodes it, so no later code meets a decoding error."""

from urllib.parse import unquote_to_bytes

from clinicrecords.api.problems import Problem, invalid, problem_response


def _is_text(raw):
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _plain(raw):
    """ASCII with nothing escaped: text as it stands (almost every request), nothing to decode."""
    return raw.isascii() and "%" not in raw


def request_text_tween_factory(handler, registry):
    def request_text_tween(request):
        environ = request.environ
        raw_path = environ.get("PATH_INFO", "")
        if not (_plain(raw_path) and "\x00" not in raw_path):
            path = unquote_to_bytes(raw_path.encode("latin-1"))
            if not _is_text(path) or b"\x00" in path:
                return problem_response(request, Problem("not_found", "The path is not valid UTF-8 text."))
        query = environ.get("QUERY_STRING", "")
        if not _plain(query) and not _is_text(unquote_to_bytes(query.replace("+", " ").encode("latin-1"))):
            return problem_response(request, invalid(
                [{"pointer": "", "location": "query", "message": "The query string is not valid UTF-8 text."}],
                "The query is not valid."))
        return handler(request)

    return request_text_tween


def includeme(config):
    config.add_tween("clinicrecords.api.request_text.request_text_tween_factory",
                     under="clinicrecords.api.request_log.request_log_tween_factory")
