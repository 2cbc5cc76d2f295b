"""What each pytest-xdist worker gets of its own: its database, named in a copy of testing.ini."""

import re
from pathlib import Path


def worker_ini(root, worker):
    """testing.ini for `worker` (gw0, ...): its own `database.name` on the shared embedded cluster, the rest
    unchanged (`%(here)s` resolved, since the copy lives under var/)."""
    text = (Path(root) / "testing.ini").read_text().replace("%(here)s", str(root))
    text, replaced = re.subn(r"^database\.name = (.*)$", rf"database.name = \1_{worker}", text, flags=re.MULTILINE)
    assert replaced == 1, "testing.ini names its database once"
    ini = Path(root) / "var" / "xdist" / f"testing-{worker}.ini"
    ini.parent.mkdir(parents=True, exist_ok=True)
    if not ini.exists() or ini.read_text() != text:  # rewritten only on change: tests/common/cli.py keys on mtime
        ini.write_text(text)
    return ini
