"""Settings from the ini file, with `env:NAME` values read from the environment at start-up."""

import os
import sys
from pathlib import Path

ENV_PREFIX = "env:"


class SettingsError(RuntimeError):
    """A setting is missing or refers to an environment variable that is not set."""


def resolve(settings):
    """Return a copy of `settings` where every `env:NAME` value is replaced by `$NAME`.

    An unset variable stops start-up: production must never fall back to a default secret or database.
    """
    resolved = {}
    for name, value in settings.items():
        if isinstance(value, str) and value.startswith(ENV_PREFIX):
            variable = value[len(ENV_PREFIX):]
            if not os.environ.get(variable):
                raise SettingsError(f"setting {name!r} needs the environment variable {variable}")
            value = os.environ[variable]
        resolved[name] = value
    return resolved


def refuse_to_start(error, at_once=False):
    """pserve, the worker and the operator CLI: a setting that stops start-up is one line naming it and exit 2,
    not a traceback (docs/deployment.md). `at_once` ends the process without unwinding, for where a
    SystemExit would be caught (pserve's server runner)."""
    print(f"clinicrecords: refusing to start: {error}", file=sys.stderr, flush=True)
    if at_once:
        os._exit(2)
    raise SystemExit(2)


def as_bool(value):
    return str(value).strip().lower() in {"1", "true", "yes", "on"}


def var_dir(settings):
    """Where the embedded database and the file-backed queue keep their files."""
    configured = os.environ.get("CLINICRECORDS_VAR") or settings.get("clinicrecords.var") or "var"
    path = Path(configured).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path
