"""Running operator commands in-process, as operators' scripts see them: exit status, stdout, stderr."""

import io
import json

from clinicrecords import tasks
from clinicrecords.cli import run
from tests.conftest import TESTING_INI


def admin(*argv, ini=TESTING_INI):
    """(exit status, the parsed JSON object on stdout or None, stderr text). Arguments may be non-strings."""
    out, err = io.StringIO(), io.StringIO()
    saved = dict(tasks._state)  # the command builds its own app; keep the suite's task registry
    try:
        status = run([ini, *map(str, argv)], stdout=out, stderr=err)
    except SystemExit as exc:  # argparse refuses malformed arguments itself
        status = exc.code
    finally:
        tasks._state.update(saved)
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
