"""examples/ run as a newcomer runs them: a separate process against the real service on 127.0.0.1."""

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from waitress import create_server

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def served(app):
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(timeout=10)


def _run(served, key, *extra):
    return subprocess.run([sys.executable, str(EXAMPLES / "send_allergy.py"), "--base-url", served, "--key", key,
                           *extra], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("extra", "decided", "on_chart"), [((), "confirmed", "1 peanut allergy"),
                                                             (("--decline",), "rejected", "0 peanut allergies")])
def test_send_an_allergy_follow_it_and_read_the_chart(world, served, extra, decided, on_chart):
    workspace_id, _ = world.workspace()
    result = _run(served, world.key(workspace_id=workspace_id, mode="test"), *extra)
    assert result.returncode == 0, result.stderr
    assert "is pending" in result.stdout and f"decided: {decided}" in result.stdout
    assert f"chart: {on_chart} for the patient" in result.stdout


def test_with_a_live_key_the_test_helpers_do_not_exist(world, served):
    workspace_id, _ = world.workspace()
    real = world.clinic(seed=True)
    world.grant(workspace_id, real)
    result = _run(served, world.key(workspace_id=workspace_id, mode="live"))
    assert result.returncode == 1 and "failed: not_found" in result.stderr and "request req_" in result.stderr
