"""Debian's PgBouncer in transaction pooling mode in front of the suite's PostgreSQL, and the application
configured for it (`database.pooled = true`), as docs/deployment.md tells an operator to run it.

PgBouncer listens on a free loopback port. Two pools reach the suite's database: `clinicrecords_test` with
three server connections (the small pool of the deadlock report) and `clinicrecords_one` with a single
server connection, where every client shares one server connection and so meets any state another left."""

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from clinicrecords import make_config
from tests.common import task_queue
from tests.common.ports import free_port

SMALL_POOL = 3


def _wait_for_port(port, process, log, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"pgbouncer exited {process.returncode}: {log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"pgbouncer did not listen on {port}: {log.read_text()}")


class PgBouncer:
    def __init__(self, port):
        self.port = port

    def url(self, database="clinicrecords_test"):
        return f"postgresql+psycopg://clinicrecords@127.0.0.1:{self.port}/{database}"


@pytest.fixture(scope="session")
def pgbouncer(app):
    binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    assert os.path.exists(binary), "Debian's pgbouncer is needed (scripts/test installs it)"
    url = app.registry["db.engine"].url
    socket_dir, database = url.query["host"], url.database
    # Not under pytest's tmp folder: PgBouncer may run as another user, who must reach its files.
    folder = Path(tempfile.mkdtemp(prefix="clinicrecords-pgbouncer-"))
    port = free_port()
    (folder / "pgbouncer.ini").write_text(f"""
[databases]
clinicrecords_test = host={socket_dir} dbname={database} user={url.username} pool_size={SMALL_POOL}
clinicrecords_one = host={socket_dir} dbname={database} user={url.username} pool_size=1

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 200
default_pool_size = {SMALL_POOL}
query_wait_timeout = 60
server_reset_query =
logfile = {folder}/pgbouncer.log
pidfile = {folder}/pgbouncer.pid
""")
    command = [binary, str(folder / "pgbouncer.ini")]
    if os.geteuid() == 0:
        # PgBouncer will not run as root: run it as the owner of the server's socket folder.
        owner = pwd.getpwuid(Path(socket_dir).stat().st_uid)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        command[1:1] = ["-u", owner.pw_name]
    log = folder / "pgbouncer.log"
    log.touch()
    if os.geteuid() == 0:
        os.chown(log, owner.pw_uid, owner.pw_gid)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(port, process, log)
        yield PgBouncer(port)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def pooled_settings(settings, pgbouncer, **overrides):
    pooled = {"database_url": pgbouncer.url(), "database.pooled": "true", "database.pool_size": str(SMALL_POOL),
              "database.max_overflow": "0", "database.pool_timeout": "60"}
    return {**settings, **pooled, **overrides}


@pytest.fixture(scope="module")
def pooled_app(settings, pgbouncer):
    """The application reaching the suite's database only through PgBouncer, with a pool of three."""
    with task_queue.kept():
        wsgi_app = make_config(pooled_settings(settings, pgbouncer)).make_wsgi_app()
        yield wsgi_app
    wsgi_app.registry["db.engine"].dispose()
