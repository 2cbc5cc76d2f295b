"""The clients nobody here wrote run as subprocesses from their own environments (.venv-tools/<name>, built
by scripts/tools-env from requirements/tools/<name>.txt) against the real service on 127.0.0.1, on a
workspace's sandbox clinic and its test key."""

import gzip
import json
import pathlib
import subprocess

import pytest

from tests.common.fhir import assert_valid_fhir
from tests.common.serving import serving

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tool(name):
    """The bin directory of the tool's environment, built (or found current) by scripts/tools-env."""
    subprocess.run([ROOT / "scripts" / "tools-env", name], check=True, timeout=900)
    return ROOT / ".venv-tools" / name / "bin"


def run(command, timeout=300, **options):
    """Run a client; its output and errors are in the failure message when it fails."""
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=timeout,
                          **options)
    assert done.returncode == 0, f"{command[0]} exited {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    return done


def ndjson_resources(folder):
    """Every resource of the NDJSON files directly in `folder` (gzipped or not; smart-fetch links there the
    current file of each type), by type."""
    found = {}
    for path in sorted(pathlib.Path(folder).glob("*.ndjson*")):
        if path.name.startswith("log."):
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    resource = json.loads(line)
                    found.setdefault(resource["resourceType"], []).append(resource)
    return found


def assert_all_valid(resources_by_type):
    for resources in resources_by_type.values():
        for resource in resources:
            assert_valid_fhir(resource)


@pytest.fixture(scope="module")
def sandbox(app):
    """A workspace's sandbox clinic (the seed's fixed ids) and a test key of that workspace."""
    from tests.common.world import World

    world = World(app.registry)
    workspace_id, clinic_id = world.workspace("FHIR Clients")
    return clinic_id, world.key(workspace_id=workspace_id, mode="test")


@pytest.fixture(scope="module")
def fhir_base(app, sandbox):
    with serving(app) as url:
        yield f"{url}/v1/clinics/{sandbox[0]}/fhir"
