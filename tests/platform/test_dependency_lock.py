"""The hash-pinned lock (requirements/lock.txt) must cover every declared dependency, within its range.

A dependency added to setup.cfg without `scripts/lock` would otherwise install on a developer's machine
and fail CI's hash-checked install much later, with a far less clear message.
"""

import configparser
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^ \\]+)")


def locked():
    pins, hashes, current = {}, {}, None
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        if match := PIN.match(line):
            current = canonicalize_name(match[1])
            pins[current] = match[2]
        elif "--hash=sha256:" in line and current:
            hashes[current] = hashes.get(current, 0) + 1
    return pins, hashes


def declared():
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    lines = setup["options"]["install_requires"].splitlines()
    for extra in setup["options.extras_require"].values():
        lines += extra.splitlines()
    client = tomllib.loads((ROOT / "clients" / "python" / "pyproject.toml").read_text())
    lines += client["project"]["dependencies"]
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())
    lines += build["build-system"]["requires"]
    return [Requirement(line) for line in (raw.strip() for raw in lines) if line and not line.startswith("#")]


PINS, HASHES = locked()


@pytest.mark.parametrize("requirement", declared(), ids=str)
def test_every_declared_dependency_is_pinned_with_hashes_inside_its_range(requirement):
    name = canonicalize_name(requirement.name)
    assert name in PINS, f"{requirement} is not in requirements/lock.txt: run scripts/lock"
    assert requirement.specifier.contains(PINS[name], prereleases=True), (
        f"the lock pins {name}=={PINS[name]}, outside {requirement}: run scripts/lock"
    )
    assert HASHES.get(name), f"{name} has no hash in the lock"


def test_every_pin_in_the_lock_carries_a_hash():
    assert PINS and set(PINS) == set(HASHES)
