"""A config file the CLI cannot use is bad input: one line on stderr, exit 2, nothing on stdout."""

import subprocess
import sys

import pytest


def _admin(config_uri):
    return subprocess.run([sys.executable, "-m", "clinicrecords.cli", str(config_uri), "clinic", "list"],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("make", [
    lambda tmp: tmp / "missing.ini",
    lambda tmp: tmp,  # a directory: exists, cannot be read as a file
    lambda tmp: _write(tmp / "binary.ini", b"\xff\xfe\x00[app:main]\n"),
    lambda tmp: _write(tmp / "garbled.ini", b"use = egg:clinicrecords\n"),
    lambda tmp: _write(tmp / "no_app.ini", b"[server:main]\nport = 1\n"),
], ids=["missing", "directory", "not-utf8", "no-section-header", "no-app-section"])
def test_an_unusable_config_file_exits_2_with_one_line(tmp_path, make):
    result = _admin(make(tmp_path))
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("clinicrecords-admin: error: "), result.stderr


def _write(path, content):
    path.write_bytes(content)
    return path
