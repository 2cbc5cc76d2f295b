"""The cookie that carries a session's token (the sessions themselves are the identity context's:
`identity.services.ISessionService`)."""


class SessionCookie:
    """HttpOnly, SameSite=Lax, and Secure (with the `__Host-` prefix) unless `portal.secure_cookies` is off,
    which only development and the tests do (they run over plain http on loopback). `settings`: the `portal.*`
    settings (a PortalSettings)."""

    def __init__(self, settings, path):
        self.secure = settings.secure_cookies
        self.name = "__Host-portal_session" if self.secure else "portal_session"
        # __Host- cookies must have Path=/; without the prefix the cookie stays on the portal's own paths.
        self.path = "/" if self.secure or not path else path
        self.absolute_seconds = settings.session_absolute_hours * 3600

    def read(self, request):
        return request.cookies.get(self.name)

    def _header(self, value, max_age):
        parts = [f"{self.name}={value}", f"Path={self.path}", f"Max-Age={max_age}", "HttpOnly", "SameSite=Lax"]
        if self.secure:
            parts.append("Secure")
        return [("Set-Cookie", "; ".join(parts))]

    def set_headers(self, request, token):
        return self._header(token, self.absolute_seconds)

    def clear_headers(self, request):
        return self._header("", 0)
