"""Where an export's files are: `exports.path`/<clinic>/<job>/attempt-<n>/, one directory per attempt, so
a restarted attempt never mixes its files with the failed one's, and removing an export is one `rmtree`."""

import shutil
from pathlib import Path

from clinicrecords.settings import app_settings, var_dir

# The directory every export is under, resolved once at start-up (`includeme`).
EXPORTS_ROOT = "exports.root"


def exports_root(settings):
    """`exports.path`, or exports/ in the var dir (development, tests)."""
    return Path(settings.exports.path) if settings.exports.path else var_dir(settings) / "exports"


def root_of(registry):
    return registry[EXPORTS_ROOT]


def set_root(config):
    config.registry[EXPORTS_ROOT] = exports_root(app_settings(config.registry))


def job_directory(root, clinic_id, job_id):
    return Path(root) / clinic_id.hex / str(job_id)


def attempt_directory(root, clinic_id, job_id, attempt):
    return job_directory(root, clinic_id, job_id) / f"attempt-{attempt}"


def remove(path):
    shutil.rmtree(path, ignore_errors=True)


def remove_other_attempts(root, clinic_id, job_id, keep):
    """Every attempt's directory but `keep`'s: a restarted attempt starts clean."""
    directory = job_directory(root, clinic_id, job_id)
    if directory.is_dir():
        for child in directory.iterdir():
            if child.name != f"attempt-{keep}":
                remove(child)
