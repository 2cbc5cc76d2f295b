"""Where the service listens: the ini's `[server:main]` `listen` (kept in the settings as `server.listen`
when the application is built from an ini file), with $HOST and $PORT put in place of its parts, as
`pserve` does (clinicrecords.serving). Links printed outside a request (the operator CLI) use it when no
public address is configured (development)."""

import os

import plaster

SETTING = "server.listen"
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


def listen_in_ini(path, server="main"):
    """The `listen` of the ini's `[server:NAME]` (its first address), from `host` and `port` when it has those
    instead; None without such a section."""
    section = plaster.get_settings(path, f"server:{server}")
    if section.get("listen"):
        return section["listen"].split()[0]
    if section.get("host") or section.get("port"):
        return f"{section.get('host', 'localhost')}:{section.get('port', '6543')}"
    return None


def settings_with_listen(settings, global_config):
    """`settings` with `server.listen` from the ini they were read from (`global_config["__file__"]`), unless
    they set it themselves."""
    path = global_config.get("__file__")
    listen = listen_in_ini(path) if path and not settings.get(SETTING) else None
    return {**settings, SETTING: listen} if listen else settings


def local_base_url(settings, environ=None):
    """http://host:port where this machine reaches the service, `localhost` for an every-interface address."""
    environ = os.environ if environ is None else environ
    host, port = _host_and_port(listen_from_environment(settings.get(SETTING) or DEFAULT_LISTEN, environ))
    host = host.strip("[]")
    if host in WILDCARD_HOSTS:
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"
