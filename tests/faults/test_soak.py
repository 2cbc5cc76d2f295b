"""A few seconds of the soak (scripts/soak runs it for minutes): mixed load without a single error."""

from tests.faults.soak import run


def test_mixed_load_answers_without_errors(app, world):
    report = run(app, world, duration=5)
    assert report["errors"] == 0, report["first_errors"]
    assert set(report["requests"]) == {"read", "write", "imports", "feed"}
    assert report["rss_final"] > 0
