"""scripts/apt-install, the one place the scripts install Debian packages, waits for apt's locks instead of
failing at once (exit 100) while the automatic updates hold them, and says so (decision 0062).
A fake apt-get (and sudo) earlier on PATH records what it was asked; nothing is installed."""

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "apt-install"

FAKE_APT_GET = """#!/bin/sh
# Records each call; `update` finds the lists' lock held the first $LOCKED_UPDATES times, as apt says it;
# `install` records what policy-rc.d would answer a package's service start (101: forbidden).
echo "$@" >> "$CALLS"
case " $* " in
*" install "*)
    if [ -x "$CLINICRECORDS_POLICY_RC_D" ]; then
        "$CLINICRECORDS_POLICY_RC_D" prometheus start; echo "policy $?" >> "$CALLS"
    else
        echo "policy none" >> "$CALLS"
    fi ;;
esac
case " $* " in
*" update "*)
    count=$(grep -c " update" "$CALLS")
    if [ "$count" -le "${LOCKED_UPDATES:-0}" ]; then
        echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
        exit 100
    fi ;;
esac
exit 0
"""
FAKE_SUDO = '#!/bin/sh\nexec "$@"\n'


def _run(tmp_path, *packages, locked_updates=0, timeout="30", policy=None):
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    for name, text in (("apt-get", FAKE_APT_GET), ("sudo", FAKE_SUDO)):
        (fake / name).write_text(text)
        (fake / name).chmod(0o755)
    calls = tmp_path / "calls"
    calls.write_text("")
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}", CALLS=str(calls),
               LOCKED_UPDATES=str(locked_updates), CLINICRECORDS_APT_LOCK_TIMEOUT=timeout,
               CLINICRECORDS_POLICY_RC_D=str(policy or tmp_path / "policy-rc.d"))
    result = subprocess.run([str(SCRIPT), *packages], env=env, capture_output=True, text=True, timeout=60)
    return result, calls.read_text().splitlines()


def test_each_apt_step_waits_for_the_lock_and_says_what_it_waits_for(tmp_path):
    result, calls = _run(tmp_path, "redis-server", "nginx")
    assert result.returncode == 0, result.stderr
    assert calls == ["-qq -o DPkg::Lock::Timeout=30 update",
                     "-qq -o DPkg::Lock::Timeout=30 install -y redis-server nginx", "policy 101"]
    assert "waiting up to 30 s" in result.stderr and "automatic updates" in result.stderr


def test_a_held_package_lists_lock_is_waited_for_not_an_exit_100(tmp_path):
    result, calls = _run(tmp_path, "chromium", locked_updates=2)
    assert result.returncode == 0, result.stderr
    assert [call.split()[-1] for call in calls] == ["update", "update", "update", "chromium", "101"]
    assert "waiting for apt's package lists lock: E: Could not get lock /var/lib/apt/lists/lock" in result.stderr


def test_a_lock_held_past_the_timeout_fails_with_apt_s_own_message(tmp_path):
    result, calls = _run(tmp_path, "chromium", locked_updates=100, timeout="2")
    assert result.returncode == 1
    assert "It is held by process 4242" in result.stderr.splitlines()[-1]
    assert not any(call.endswith("chromium") for call in calls)


def test_no_package_starts_its_own_service_and_the_policy_made_for_the_install_is_removed(tmp_path):
    # The packaged Prometheus (or redis-server, nginx) would listen on its own port beside the one the scripts
    # start: the install runs under a policy-rc.d that forbids every service start, gone once it has run.
    result, calls = _run(tmp_path, "prometheus")
    assert result.returncode == 0, result.stderr
    assert calls[-1] == "policy 101"
    assert not (tmp_path / "policy-rc.d").exists()


def test_a_policy_already_there_is_used_and_left_as_it_is(tmp_path):
    policy = tmp_path / "containers-policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)
    result, calls = _run(tmp_path, "nginx", policy=policy)
    assert result.returncode == 0, result.stderr
    assert calls[-1] == "policy 101" and policy.read_text() == "#!/bin/sh\nexit 101\n"


def test_no_other_script_calls_apt_get_itself():
    callers = [ROOT / "scripts" / "test", ROOT / "scripts" / "bench", ROOT / "tests" / "rehearsal" / "__main__.py",
               ROOT / ".ci" / "run"]
    for caller in callers:
        text = caller.read_text()
        assert not re.search(r"apt-get[\"' ]+(update|install)", text), f"{caller} installs without scripts/apt-install"
    assert all("apt-install" in caller.read_text() for caller in callers[:3])
