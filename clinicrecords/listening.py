"""Where the service listens: the ini's `[server:main]` `listen` (the setting `server.listen`, which
clinicrecords.settings reads from there when the application is built from an ini file), with $HOST and $PORT
put in place of its parts, as `pserve` does (clinicrecords.serving). Links printed outside a request (the
operator CLI) use it when no public address is configured (development), unless the service runs: then it
records where it answers (`record_served`) and the CLI follows that record (`recorded_url`)."""

import atexit
import hashlib
import json
import os
from pathlib import Path

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


# Where a running service records the address it answers at, in its var dir: the operator CLI, run in another
# shell (without the server's $PORT), builds its links on it (clinicrecords.settings.with_served_url).
SERVED_FILE = "served.json"


def served_identity(database_url, database_name):
    """Names the database a service serves (its URL setting and name), without keeping a password in the
    file: a CLI on another database (testing.ini's, beside development.ini's in one var dir) ignores it."""
    return hashlib.sha256(f"{database_url}\n{database_name}".encode()).hexdigest()


def record_served(var, url, identity):
    """Record that this process answers at `url`; the record goes when the process exits (if it is still
    this process's: a later server's is left alone)."""
    path = Path(var) / SERVED_FILE
    partial = path.with_name(f"{SERVED_FILE}.{os.getpid()}.partial")
    partial.write_text(json.dumps({"url": url, "pid": os.getpid(), "identity": identity}))
    os.replace(partial, path)  # a reader never sees half a record
    atexit.register(_forget_served, path, os.getpid())


def _forget_served(path, pid):
    if _read(path).get("pid") == pid:
        path.unlink(missing_ok=True)


def recorded_url(var, identity):
    """The address a running service recorded in `var` for the database `identity`; None when there is no
    record, it names another database, or its process is gone (a server killed outright leaves its record)."""
    record = _read(Path(var) / SERVED_FILE)
    url, pid = record.get("url"), record.get("pid")
    if record.get("identity") != identity or not isinstance(url, str) or not url.startswith(("http://", "https://")) \
            or not isinstance(pid, int) or pid == os.getpid() or not _running(pid):
        return None
    return url


def _read(path):
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _running(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return pid > 0
