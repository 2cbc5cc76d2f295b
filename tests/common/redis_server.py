"""A real Redis (Debian's redis-server) on a loopback port with a data folder of its own, for the tests and
the production rehearsal: append-only persistence as in production, so a restart keeps what was queued."""

import shutil
import subprocess
import time
from pathlib import Path

import redis

from tests.common.ports import free_port


class RedisServer:
    def __init__(self, directory, port=None, maxmemory="64mb", replica_of=None):
        self.directory = Path(directory)
        self.port = port or free_port()
        self.maxmemory = maxmemory
        self.replica_of = replica_of  # the primary's port: this one starts as its replica
        self.process = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self):
        return redis.Redis.from_url(self.url)

    def start(self, timeout=20):
        executable = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.directory.mkdir(parents=True, exist_ok=True)
        # No config file: every setting on the command line. noeviction, since the queue must never lose a
        # task to make room (a full Redis refuses writes instead).
        self.process = subprocess.Popen(
            [executable, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--daemonize", "no",
             "--maxmemory", self.maxmemory, "--maxmemory-policy", "noeviction",
             "--logfile", str(self.directory / "redis.log"),
             *(("--replicaof", "127.0.0.1", str(self.replica_of)) if self.replica_of else ())],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited: see {self.directory / 'redis.log'}")
            try:
                if self.client().ping():
                    return self
            except redis.exceptions.ConnectionError:  # not listening yet, or still loading its AOF
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer within {timeout} s")

    def kill(self):
        """SIGKILL: what a crashed host looks like to its clients and its Sentinels."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(20)

    def stop(self, timeout=20):
        """A clean shutdown (SHUTDOWN: the append-only file is flushed), SIGKILL if it hangs."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout)

    def restart(self):
        self.stop()
        return self.start()
