"""Helpers of the export writer's tests: a seeded sandbox, one attempt written, its files read back."""

import hashlib
import json
import uuid

from clinicrecords.exports.sources import EXPORT_TYPES
from clinicrecords.exports.writer import write_export


def export(registry, clinic_id, directory, types=tuple(EXPORT_TYPES), since=None, split_bytes=1 << 20, **options):
    directory.mkdir(exist_ok=True)
    options.setdefault("owner_id", uuid.uuid4())  # a key's owner that sent and added nothing
    return write_export(clinic_id, types=types, since=since, directory=directory, split_bytes=split_bytes,
                        base_url=f"https://api.example/v1/clinics/{clinic_id}/fhir", registry=registry, **options)


def lines_of(directory, written_file):
    content = (directory / written_file.name).read_bytes()
    assert written_file.size == len(content)
    assert written_file.etag == hashlib.sha256(content).hexdigest()
    resources = [json.loads(line) for line in content.splitlines()]
    assert written_file.count == len(resources)
    return resources


def exported(directory, written):
    """{(type, permission): [resources]} over every output file (split files joined in order)."""
    found = {}
    for written_file in written.output:
        found.setdefault((written_file.type, written_file.permission), []).extend(lines_of(directory, written_file))
    return found


def seeded_sandbox(world):
    """(clinic id, workspace id, test key): a fresh workspace's seeded sandbox and a key that reads it."""
    workspace_id, clinic_id = world.workspace()
    return clinic_id, workspace_id, world.key(workspace_id=workspace_id, mode="test")
