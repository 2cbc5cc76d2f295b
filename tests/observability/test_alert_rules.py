"""The shipped alert rules (deploy/prometheus/alerts.yml): each unit-tested by Debian's promtool, and each
reading only metrics the service exposes."""

import re
import shutil
import subprocess
from pathlib import Path

import yaml

RULES = Path(__file__).parents[2] / "deploy" / "prometheus"
promtool = shutil.which("promtool")


def alerts():
    return [rule for group in yaml.safe_load((RULES / "alerts.yml").read_text())["groups"]
            for rule in group["rules"]]


def test_promtool_passes_the_rules_unit_tests():
    assert promtool is not None, "Debian's prometheus package (promtool) is missing: scripts/test installs it"
    done = subprocess.run([promtool, "test", "rules", "alerts_test.yml"], cwd=RULES, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_alert_has_a_firing_test_and_a_quiet_one():
    tests = yaml.safe_load((RULES / "alerts_test.yml").read_text())["tests"]
    cases = [case for test in tests for case in test["alert_rule_test"]]
    for rule in alerts():
        mine = [case for case in cases if case["alertname"] == rule["alert"]]
        assert any(case["exp_alerts"] for case in mine), rule["alert"]
        assert any(not case["exp_alerts"] for case in mine), rule["alert"]


def test_the_rules_read_only_metrics_the_service_exposes(testapp):
    testapp.get("/healthz")  # a labelled series is written from its first count on
    exposed = testapp.get("/metrics").text
    for rule in alerts():
        for name in set(re.findall(r"clinicrecords_[a-z_]+", rule["expr"])):
            assert f"\n{name}" in exposed or f"\n{name}{{" in exposed or exposed.startswith(name), \
                (rule["alert"], name)
