"""A change whose email the mail guard withheld (a name holding a link off the portal, say) still completes, and
the page after it says the email could not be sent: the mail service notes each withheld message on the
request's state; a portal POST answered with a redirect carries `mail=not-sent` to the page it leads to, and a
page rendered by the request itself reads the state. The log says which rule the message broke
(`clinicrecords.mail.services`)."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pyramid.response import Response

PARAMETER = "mail"
NOT_SENT = "not-sent"


def _with_notice(location):
    parts = urlsplit(location)
    query = [(name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True) if name != PARAMETER]
    return urlunsplit(parts._replace(query=urlencode([*query, (PARAMETER, NOT_SENT)])))


def mail_notice_deriver(view, info):
    """Every portal view: a redirect answering a request whose email was withheld says so to the next page."""
    if info.exception_only or info.options.get("route_name") != "portal":
        return view

    def noticed_view(context, request):
        response = view(context, request)
        if (request.state.mail_withheld and isinstance(response, Response) and response.status_int in range(300, 400)
                and response.location):
            response.location = _with_notice(response.location)
        return response

    return noticed_view


def mail_not_sent(request):
    """Whether the page says an email could not be sent (the layout's notice)."""
    return bool(request.state.mail_withheld) or request.GET.get(PARAMETER) == NOT_SENT
