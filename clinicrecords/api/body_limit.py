"""`body_limit=` view option: a body larger than the limit (bytes) is refused with 413 payload_too_large
before it is parsed, so an oversized import is refused before any of its rows is read."""

from clinicrecords.api.problems import Problem


def body_limit_deriver(view, info):
    limit = info.options.get("body_limit")
    if not limit or info.exception_only:
        return view

    def limited_view(context, request):
        declared = request.content_length
        if (declared is not None and declared > limit) or len(request.body) > limit:
            raise Problem("payload_too_large", f"The body may be at most {limit} bytes.")
        return view(context, request)

    return limited_view


body_limit_deriver.options = ("body_limit",)


def includeme(config):
    config.add_view_deriver(body_limit_deriver, name="body_limit", over="validation")
