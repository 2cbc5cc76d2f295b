"""`python -m tests.rehearsal [--sentinel | --failover | --backup]` (scripts/rehearse): the production rehearsal,
one line per check. `--sentinel`: the same stack with Redis behind Sentinel, and a Redis failover under load
(tests/rehearsal/sentinel.py); `--failover`: the PostgreSQL failover rehearsal (tests/rehearsal/failover.py);
`--backup`: pgBackRest's backups and a point-in-time recovery (tests/rehearsal/backup.py).

Exits 0 when every check passed, 1 on the first that fails (the stack's logs stay under var/rehearsal,
var/rehearsal-sentinel, var/rehearsal-failover or var/rehearsal-backup), 2 without starting anything when a secret
is missing from the environment or the switch is unknown."""

import os
import shutil
import signal
import subprocess
import sys
import time
import traceback

from tests.rehearsal import backup, failover
from tests.rehearsal.checks import CHECKS, Failed, Rehearsal
from tests.rehearsal.sentinel import CHECKS as SENTINEL_CHECKS
from tests.rehearsal.sentinel import SentinelRehearsal
from tests.rehearsal.stack import ROOT, missing_secrets

PACKAGES = {"redis-server": "redis-server", "nginx": "nginx", "prometheus": "prometheus"}
# Each switch: its rehearsal, its checks, its folder under var/ and the Debian packages it needs besides.
REHEARSALS = {None: (Rehearsal, CHECKS, "rehearsal", {}),
              "--sentinel": (SentinelRehearsal, SENTINEL_CHECKS, "rehearsal-sentinel",
                             {"redis-sentinel": "redis-sentinel"}),
              "--failover": (failover.FailoverRehearsal, failover.CHECKS, "rehearsal-failover", failover.PACKAGES),
              "--backup": (backup.BackupRehearsal, backup.CHECKS, "rehearsal-backup", backup.PACKAGES)}


def _installed(command):
    if command.startswith("/"):
        return os.path.exists(command)
    return shutil.which(command) or os.path.exists(f"/usr/sbin/{command}")


def install_missing_packages(packages):
    """Debian's redis-server and nginx (and what the rehearsal adds), as scripts/test installs chromium."""
    missing = [package for command, package in packages.items() if not _installed(command)]
    if not missing or not shutil.which("apt-get"):
        return
    # It waits for apt's lock while the automatic updates hold it (up to 10 minutes), then installs.
    subprocess.run([str(ROOT / "scripts" / "apt-install"), *missing], check=True, timeout=1800)


def _stop_on_signal(signum, frame):
    raise SystemExit(128 + signum)  # unwinds through the finally below, which stops every process


def main(argv=()):
    if len(argv) > 1 or (argv and argv[0] not in REHEARSALS):
        print(f"usage: scripts/rehearse [{' | '.join(name for name in REHEARSALS if name)}]", file=sys.stderr)
        return 2
    rehearsal_class, checks, folder, packages = REHEARSALS[argv[0] if argv else None]
    missing = missing_secrets()
    if missing:
        print(f"rehearse: set {', '.join(missing)} in the environment first: production.ini reads them "
              "and the service refuses to start without them (docs/deployment.md)", file=sys.stderr)
        return 2
    install_missing_packages({**PACKAGES, **packages})
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _stop_on_signal)
    rehearsal = rehearsal_class(ROOT / "var" / folder)
    started = time.monotonic()
    try:
        for title, name in checks:
            began = time.monotonic()
            try:
                detail = getattr(rehearsal, name)()
            except Exception as error:  # any failure is the check's failure, reported as one line
                log = rehearsal.stack.logs / "rehearsal.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                log.write_text(traceback.format_exc())
                reason = str(error) if isinstance(error, Failed) else f"{type(error).__name__}: {error}"
                print(f"FAIL {title}: {reason} (traceback and logs: {log.parent})", flush=True)
                return 1
            print(f"ok   {title}: {detail} [{time.monotonic() - began:.1f} s]", flush=True)
        print(f"ok   rehearsal: {len(checks)} checks in {time.monotonic() - started:.0f} s", flush=True)
        return 0
    finally:
        rehearsal.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
