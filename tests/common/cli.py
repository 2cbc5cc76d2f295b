"""Running operator commands in-process, as operators' scripts see them: exit status, stdout, stderr."""

import contextlib
import io
import json
import os
from unittest import mock

from pyramid import paster
from pyramid.scripting import prepare

from clinicrecords import tasks
from clinicrecords.cli import run
from clinicrecords.settings import app_settings
from tests.common import task_queue
from tests.conftest import TESTING_INI

# Applications the commands ran on, by what builds them: building one (the ini, the entry points, every
# context's configuration) took most of a command's time, and a suite runs hundreds of commands.
_apps = {}
_real_bootstrap = paster.bootstrap


def _built_from(config_uri):
    path = config_uri.partition("#")[0]
    stat = os.stat(path)
    environ = frozenset((name, value) for name, value in os.environ.items() if name != "PYTEST_CURRENT_TEST")
    return config_uri, stat.st_mtime_ns, stat.st_size, environ


def _bootstrap_once(config_uri, request=None, options=None):
    """`pyramid.paster.bootstrap` as the CLI calls it, building each application once."""
    key = _built_from(config_uri)
    if key not in _apps:
        env = _real_bootstrap(config_uri, request=request, options=options)
        env["closer"]()
        _apps[key] = env["app"]
    app = _apps[key]
    # As building it did: the command's tasks go to its own queue and run on its registry.
    tasks.configure(app_settings(app.registry))
    tasks._state["registry"] = app.registry
    env = prepare(request, registry=app.registry)
    env["app"] = app
    return env


@contextlib.contextmanager
def _reusing_applications():
    with mock.patch.object(paster, "bootstrap", _bootstrap_once):
        yield


def admin(*argv, ini=TESTING_INI):
    """(exit status, the parsed JSON object on stdout or None, stderr text). Arguments may be non-strings."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with task_queue.kept(), _reusing_applications():  # the command's app is its own; the suite's queue stays
            status = run([ini, *map(str, argv)], stdout=out, stderr=err)
    except SystemExit as exc:  # argparse refuses malformed arguments itself
        status = exc.code
    text = out.getvalue()
    if status == 0:
        assert text.count("\n") == 1, "exactly one JSON object on stdout"
    return status, (json.loads(text) if status == 0 else None), err.getvalue()


def ok(*argv, ini=TESTING_INI):
    status, result, err = admin(*argv, ini=ini)
    assert status == 0, err
    return result


def refused(*argv, ini=TESTING_INI):
    """The contract for bad input: exit 2 and nothing on stdout. Returns stderr."""
    status, result, err = admin(*argv, ini=ini)
    assert status == 2 and result is None, (status, err)
    return err


def row_counts(engine, *models):
    """The number of rows of each model's table: what a refused command must leave unchanged."""
    from sqlalchemy import func, select

    with engine.connect() as connection:
        return tuple(connection.execute(select(func.count()).select_from(model)).scalar() for model in models)
