"""The suite does not depend on the shell it is run from: a developer who exported `PORT` (to serve elsewhere),
`HOST`, `DATABASE_URL` or `REDIS_URL` gets the same results as a fresh shell (tests/conftest.py,
`pytest_configure`, drops them before anything reads them)."""

import os
import subprocess
import sys

from tests.conftest import ROOT

CALLERS_SHELL = {"PORT": "6599", "HOST": "203.0.113.7", "REDIS_URL": "redis://203.0.113.7:1/0",
                 "DATABASE_URL": "postgresql://nobody@203.0.113.7:1/nowhere"}
# A test that reads the service's address as a fresh shell has it, and builds no application (one that did
# would rebuild the test database this run may be using).
ADDRESS_TESTS = (
    "tests/mail/test_settings.py::test_development_writes_files_under_var_mail_and_links_to_the_local_portal",
)


def test_tests_pass_with_port_host_and_service_urls_exported_in_the_callers_shell():
    # A run of its own, as from the shell: not one of this run's workers, nor with its test database.
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTEST_", "CLINICRECORDS_TEST_"))}
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q",
                             *ADDRESS_TESTS], env={**env, **CALLERS_SHELL}, cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_this_run_holds_none_of_the_callers_port_host_or_service_urls():
    assert [name for name in ("PORT", "HOST", "REDIS_URL") if name in os.environ] == []
    assert os.environ.get("DATABASE_URL") == os.environ.get("CLINICRECORDS_TEST_DATABASE_URL")
