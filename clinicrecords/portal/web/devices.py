"""The device cookie: a random id a browser keeps for a year, so that the identity context can tell a sign-in
from a browser an account used before from a new one (`identity.services.IKnownDevices`). HttpOnly,
SameSite=Lax, and Secure with the `__Host-` prefix unless `portal.secure_cookies` is off (development and the
tests, over plain http on loopback), as the session cookie. It opens nothing: it only says "seen before"."""

from clinicrecords.identity.services import IKnownDevices

MAX_AGE = 365 * 24 * 3600


class DeviceCookie:
    def __init__(self, session_cookie):
        self.secure = session_cookie.secure
        self.name = "__Host-portal_device" if self.secure else "portal_device"
        self.path = session_cookie.path

    def signed_in(self, request, account_id):
        """Record this browser's sign-in as `account_id` (a new device is mailed): the cookie to set."""
        device_id = request.find_service(IKnownDevices).signed_in(
            account_id, request.cookies.get(self.name), request.user_agent, request.remote_addr)
        parts = [f"{self.name}={device_id}", f"Path={self.path}", f"Max-Age={MAX_AGE}", "HttpOnly", "SameSite=Lax"]
        if self.secure:
            parts.append("Secure")
        return [("Set-Cookie", "; ".join(parts))]
