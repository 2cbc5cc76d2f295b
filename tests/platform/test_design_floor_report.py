"""What `python -m bench.design_floor` reports of the service against the design's floor: the ratios the
targets read (rate, CPU per request, p99), over the medians and round by round, with their spread."""

from bench.design_floor import TARGETS_AGAINST_DESIGN, against_design
from bench.harness import summarise


def _run(rps, cpu_ms, p99_ms):
    return {"rps": rps, "p50_ms": 1.0, "p99_ms": p99_ms, "cpu_ms_per_request": cpu_ms, "errors": 0, "requests": 10}


def _report(app, design, scenario="get_one_allergy"):
    runs = {"app": [_run(*row) for row in app], "design": [_run(*row) for row in design]}
    medians = {kind: summarise(kind_runs) for kind, kind_runs in runs.items()}
    return against_design(runs, medians, TARGETS_AGAINST_DESIGN[scenario])


def test_each_round_is_the_service_over_the_design_of_the_same_round():
    report = _report(app=[(90, 2.2, 30), (80, 2.0, 20), (100, 2.1, 40)],
                     design=[(100, 2.0, 20), (100, 2.0, 20), (100, 2.0, 20)])
    assert [round["rps"] for round in report["rounds"]] == [0.9, 0.8, 1.0]
    assert report["median"] == {"rps": 0.9, "cpu": 1.05, "p99": 1.5}
    assert report["spread"] == {"rps": [0.8, 1.0], "cpu": [1.0, 1.1], "p99": [1.0, 2.0]}


def test_a_target_is_met_only_on_its_side_of_the_bound():
    met = _report(app=[(85, 2.4, 30)], design=[(100, 2.0, 20)])["met"]
    assert met == {"rps": True, "cpu": True, "p99": True}
    missed = _report(app=[(84, 2.5, 31)], design=[(100, 2.0, 20)])["met"]
    assert missed == {"rps": False, "cpu": False, "p99": False}


def test_post_is_held_to_its_rate_alone():
    report = _report(app=[(60, 9.0, 90)], design=[(100, 2.0, 20)], scenario="post_allergy_32c")
    assert report["met"] == {"rps": False}
    assert _report(app=[(65, 9.0, 90)], design=[(100, 2.0, 20)], scenario="post_allergy_32c")["met"] == {"rps": True}
