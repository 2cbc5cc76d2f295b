"""A small HTTP client for the rehearsal: one connection per call, from a chosen loopback source address."""

import http.client
import json
import re
import time
from urllib.parse import urlencode
from dataclasses import dataclass


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    @property
    def json(self):
        return json.loads(self.body) if self.body else None

    @property
    def code(self):
        """The problem's stable `code`, or None."""
        return (self.json or {}).get("code") if self.headers.get("content-type", "").endswith("json") else None


class Broken(OSError):
    """The connection failed or the answer was cut short (a process killed mid-answer)."""


def call(port, method, path, key=None, body=None, headers=None, source="127.0.0.1", timeout=30):
    """One request to 127.0.0.1:port. Raises OSError (Broken) when the connection fails or the answer is cut."""
    sent = {"Accept": "application/json", "Connection": "close", **(headers or {})}
    if key:
        sent["Authorization"] = f"Bearer {key}"
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        connection.request(method, path, body=payload, headers=sent)
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    except http.client.HTTPException as error:
        raise Broken(f"{type(error).__name__}: {error}") from error
    finally:
        connection.close()


def sign_up(port, email, password):
    """The portal's sign-up form, as a browser fills it: its page first (the CSRF cookie and the form's token),
    then the POST with both. The POST's answer."""
    page = call(port, "GET", "/portal/signup", headers={"Accept": "text/html"})
    cookie = page.headers.get("set-cookie", "").split(";")[0]
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.body.decode())
    if page.status != 200 or not cookie or token is None:
        return page
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/portal/signup", body=urlencode(
            {"csrf_token": token.group(1), "email": email, "password": password}), headers={
            "Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie, "Accept": "text/html",
            "Connection": "close"})
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def wait_until(predicate, timeout, pause=0.2):
    """predicate()'s first true value within `timeout` seconds, else None."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except OSError:
            value = None
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(pause)
