"""Where the service listens: the ini's `[server:main]` `listen` (the setting `server.listen`, which
clinicrecords.settings reads from there when the application is built from an ini file), with $HOST and $PORT
put in place of its parts, as `pserve` does (clinicrecords.serving). Links printed outside a request (the
operator CLI) use it when no public address is configured (development)."""

import os

DEFAULT_LISTEN = "localhost:6543"
# Addresses that mean "every interface": a browser on this machine reaches them as localhost.
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::", "*"})


def _host_and_port(listen):
    host, _, port = listen.rpartition(":") if ":" in listen else (listen, "", "6543")
    return host, port


def listen_from_environment(listen, environ):
    """The ini's `listen` (one host:port) with $HOST and/or $PORT put in place of its parts."""
    host, port = _host_and_port(listen)
    return f"{environ.get('HOST') or host}:{environ.get('PORT') or port}"


def local_base_url(listen, environ=None):
    """http://host:port where this machine reaches a service listening on `listen` (the setting
    `server.listen`; None: pserve's default), `localhost` for an every-interface address."""
    environ = os.environ if environ is None else environ
    host, port = _host_and_port(listen_from_environment(listen or DEFAULT_LISTEN, environ))
    host = host.strip("[]")
    if host in WILDCARD_HOSTS:
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"
