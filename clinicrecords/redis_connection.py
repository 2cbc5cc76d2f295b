"""The one way to reach Redis from a `redis_url` setting, for everything that uses it (the rate limiter's minute
counters, Huey's queue). Two forms (docs/deployment.md, "Redis"):

- `redis://[[user]:password@]host:6379/0` (also `rediss://`, `unix://`, with redis-py's query options): that
  one server.
- `redis+sentinel://[[user]:password@]h1:26379,h2:26379,h3:26379/service/0[?option=value...]`: the primary of
  `service` as the Sentinels at h1, h2 and h3 name it. The pool asks them again whenever a connection fails or
  finds its server demoted to a replica (READONLY), so a failover is followed without a restart or a
  configuration change. The user and password are the data servers'; the Sentinels' own password, if they
  require one, is the `sentinel_password` option. The other options are the socket bounds in seconds,
  `socket_timeout` (default 3: above Huey's 1 s blocking read) and `socket_connect_timeout` (default 1: a dead
  primary on a real network times out rather than refusing).
"""

from urllib.parse import parse_qsl, unquote, urlsplit

import redis
from redis.sentinel import Sentinel

from clinicrecords.settings import SettingsError

SENTINEL_SCHEME = "redis+sentinel"
SENTINEL_PORT = 26379
SENTINEL_DEFAULTS = {"socket_timeout": 3.0, "socket_connect_timeout": 1.0}
_SENTINEL_OPTIONS = {"socket_timeout": float, "socket_connect_timeout": float, "sentinel_password": str}


class RedisUrlError(SettingsError, ValueError):
    """A `redis_url` that names no server (or Sentinels and service) this module can reach: start-up stops with
    one line saying so, the password hidden."""


def connection_pool(url):
    """A redis-py connection pool for either form of `url`."""
    if urlsplit(url).scheme == SENTINEL_SCHEME:
        return _sentinel_pool(parse_sentinel_url(url))
    try:
        return redis.ConnectionPool.from_url(url)
    except ValueError as exc:
        raise RedisUrlError(f"{_without_password(url)}: {exc}") from exc


def client(url):
    """A Redis client on `connection_pool(url)`."""
    return redis.Redis(connection_pool=connection_pool(url))


def parse_sentinel_url(url):
    """The parts of a `redis+sentinel://` URL: {sentinels: [(host, port)], service, db, username, password,
    sentinel_password, socket_timeout, socket_connect_timeout}."""
    parts = urlsplit(url)
    credentials, _, hosts = parts.netloc.rpartition("@")
    username, _, password = credentials.partition(":")
    sentinels = [_host_port(item, url) for item in hosts.split(",") if item]
    segments = [unquote(segment) for segment in parts.path.split("/") if segment]
    if not sentinels or not 1 <= len(segments) <= 2:
        raise RedisUrlError(f"{_without_password(url)}: expected {SENTINEL_SCHEME}://host:port[,host:port...]/"
                            "service[/db]")
    db = segments[1] if len(segments) == 2 else "0"
    if not db.isdigit():
        raise RedisUrlError(f"{_without_password(url)}: the database must be a number, not {db!r}")
    options = dict(SENTINEL_DEFAULTS, sentinel_password=None)
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name not in _SENTINEL_OPTIONS:
            raise RedisUrlError(f"{_without_password(url)}: unknown option {name!r} "
                                f"(known: {', '.join(sorted(_SENTINEL_OPTIONS))})")
        try:
            options[name] = _SENTINEL_OPTIONS[name](value)
        except ValueError as exc:
            raise RedisUrlError(f"{_without_password(url)}: {name} must be a number, not {value!r}") from exc
    return {"sentinels": sentinels, "service": segments[0], "db": int(db), "username": unquote(username) or None,
            "password": unquote(password) or None, **options}


def _sentinel_pool(parsed):
    timeouts = {"socket_timeout": parsed["socket_timeout"],
                "socket_connect_timeout": parsed["socket_connect_timeout"]}
    sentinel_kwargs = dict(timeouts)
    if parsed["sentinel_password"]:
        sentinel_kwargs["password"] = parsed["sentinel_password"]
    sentinels = Sentinel(parsed["sentinels"], sentinel_kwargs=sentinel_kwargs, **timeouts)
    primary = sentinels.master_for(parsed["service"], db=parsed["db"], username=parsed["username"],
                                   password=parsed["password"])
    return primary.connection_pool


def _host_port(item, url):
    host, _, port = item.rpartition(":") if not item.endswith("]") else (item, "", "")
    if not host:
        host, port = item, ""
    host = host.strip("[]")
    if not host or (port and not port.isdigit()):
        raise RedisUrlError(f"{_without_password(url)}: {item!r} is not host:port")
    return host, int(port) if port else SENTINEL_PORT


def _without_password(url):
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]).geturl()
