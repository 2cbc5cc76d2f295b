"""examples/ run as a newcomer runs them: a separate process against the real service on 127.0.0.1."""

import pytest

from tests.examples.conftest import run_example


def _run(served, key, *extra):
    return run_example("send_allergy.py", served, key, *extra)


@pytest.mark.parametrize(("extra", "decided", "on_chart"), [((), "confirmed", "1 peanut allergy"),
                                                             (("--decline",), "rejected", "0 peanut allergies")])
def test_send_an_allergy_follow_it_and_read_the_chart(world, served, extra, decided, on_chart):
    workspace_id, _ = world.workspace()
    result = _run(served, world.key(workspace_id=workspace_id, mode="test"), *extra)
    assert result.returncode == 0, result.stderr
    assert "is pending" in result.stdout and f"decided: {decided}" in result.stdout
    assert f"chart: {on_chart} for the patient" in result.stdout


def test_a_live_key_is_refused_before_anything_is_written(world, served, testapp):
    workspace_id, _ = world.workspace()
    real = world.clinic(seed=True)
    world.grant(workspace_id, real)
    live = world.key(workspace_id=workspace_id, mode="live")
    result = _run(served, live)
    assert result.returncode == 2 and "needs a test key" in result.stderr
    sent = testapp.get(f"/v1/clinics/{real}/submissions", headers={"Authorization": f"Bearer {live}"})
    assert sent.json["data"] == []
