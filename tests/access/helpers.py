"""Small helpers shared by the access tests."""

import io
import json

from clinicrecords import tasks
from clinicrecords.cli import run
from tests.conftest import TESTING_INI


def bearer(key):
    return {"Authorization": f"Bearer {key}"}


def admin(*argv):
    """Run an operator command in-process: (exit status, parsed stdout or None, stderr text)."""
    out, err = io.StringIO(), io.StringIO()
    saved = dict(tasks._state)
    try:
        status = run([TESTING_INI, *argv], stdout=out, stderr=err)
    except SystemExit as exc:  # argparse refuses malformed arguments itself
        status = exc.code
    finally:
        tasks._state.update(saved)
    text = out.getvalue()
    if status == 0:
        assert text.count("\n") == 1, "exactly one JSON object on stdout"
    return status, (json.loads(text) if status == 0 else None), err.getvalue()
