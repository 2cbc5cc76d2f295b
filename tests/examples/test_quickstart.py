"""scripts/serve's banner (the keys a newcomer starts from) runs on the oldest Python the README promises."""

import json
import re
import subprocess
import sys

from tests.examples.conftest import EXAMPLES

SERVE = EXAMPLES.parent / "scripts" / "serve"


def test_the_banner_prints_the_demo_workspace_and_every_key():
    snippet = re.search(r"^banner='\n(.*?)\n'$", SERVE.read_text(), re.S | re.M).group(1)
    demo = {"workspace_id": "w-1", "clinic_id": "c-1", "sandbox_clinic_id": "s-1", "curl": "curl ...",
            "keys": {"live": "ehr_live_a_b", "test": "ehr_test_c_d", "clinic": "ehr_live_e_f"},
            "keys_kept": True, "keys_file": "var/demo-keys.json", "docs_url": "http://localhost:6543/v1/docs",
            "base_url": "http://localhost:6543"}
    # As `--setup-only` runs it: no server to wait for.
    result = subprocess.run([sys.executable, "-c", snippet, json.dumps(demo), "", ""], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    for line in ("demo workspace:     w-1", "sandbox clinic:     s-1", "test key (sandbox): ehr_test_c_d",
                 "clinic-owned key:   ehr_live_e_f", "curl ...", "the same keys as last time, kept in "
                 "var/demo-keys.json", "API reference: http://localhost:6543/v1/docs",
                 "http://localhost:6543/portal/"):
        assert line in result.stdout
