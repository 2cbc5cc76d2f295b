"""Every example, with nothing listening at --base-url: one line on stderr, no traceback, a non-zero exit."""


import pytest

from tests.common.ports import free_port
from tests.examples.conftest import EXAMPLES, run_example


@pytest.fixture
def closed_port():
    """A loopback port nothing listens on: connecting is refused at once."""
    return free_port()


A_TEST_KEY = "ehr_test_0123456789abcdef_" + "0" * 48


@pytest.mark.parametrize("script", sorted(path.name for path in EXAMPLES.glob("*.py")))
def test_an_unreachable_service_gets_one_line(script, closed_port, tmp_path):
    extra = ("--state", str(tmp_path / "bands.json")) if script == "sync_inventory_bands.py" else ()
    result = run_example(script, f"http://127.0.0.1:{closed_port}", A_TEST_KEY, *extra, timeout=60)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "cannot reach" in result.stderr, result.stderr
