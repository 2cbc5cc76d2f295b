"""A Redis primary, its replica and three Sentinels (Debian's redis-server and redis-sentinel) on loopback ports,
for the tests and the Sentinel rehearsal. The Sentinels call the primary down after one second without an
answer (production: a few seconds, docs/deployment.md) so a failover takes a few seconds, not half a minute."""

import shutil
import subprocess
import time
from pathlib import Path

import redis

from tests.common.ports import free_port
from tests.common.redis_server import RedisServer

SERVICE = "clinicrecords"


class SentinelGroup:
    def __init__(self, directory, down_after_ms=1000, maxmemory="64mb"):
        self.directory = Path(directory)
        self.down_after_ms = down_after_ms
        primary = RedisServer(self.directory / "primary", maxmemory=maxmemory)
        replica = RedisServer(self.directory / "replica", maxmemory=maxmemory, replica_of=primary.port)
        self.servers = [primary, replica]
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.sentinels = []
        self._clients = {}

    @property
    def url(self):
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{SERVICE}/0"

    def start(self, timeout=30):
        primary, replica = self.servers
        primary.start()
        replica.start()
        executable = shutil.which("redis-sentinel") or "/usr/bin/redis-sentinel"
        for port in self.sentinel_ports:
            folder = self.directory / f"sentinel-{port}"
            folder.mkdir(parents=True, exist_ok=True)
            config = folder / "sentinel.conf"  # a Sentinel rewrites its file with what it learns: one each
            config.write_text(
                f"port {port}\nbind 127.0.0.1\ndaemonize no\ndir {folder}\nlogfile {folder / 'sentinel.log'}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {primary.port} 2\n"
                f"sentinel down-after-milliseconds {SERVICE} {self.down_after_ms}\n"
                f"sentinel failover-timeout {SERVICE} 10000\n"
                f"sentinel parallel-syncs {SERVICE} 1\n")
            self.sentinels.append(subprocess.Popen([executable, str(config)], stdout=subprocess.DEVNULL,
                                                   stderr=subprocess.DEVNULL, start_new_session=True))
        ready = self.wait(lambda: self.replica_in_sync() and all(
            self._sentinel(port).sentinel_master(SERVICE)["num-other-sentinels"] == 2
            and self._sentinel(port).sentinel_master(SERVICE)["num-slaves"] == 1 for port in self.sentinel_ports),
            timeout)
        if not ready:
            raise RuntimeError(f"the Sentinels did not see the primary, its replica and each other within {timeout} s"
                               f": see {self.directory}")
        return self

    def primary_port(self):
        """The port of the server the Sentinels name as the primary now."""
        return int(self._sentinel(self.sentinel_ports[0]).sentinel_get_master_addr_by_name(SERVICE)[1])

    def server_on(self, port):
        return next(server for server in self.servers if server.port == port)

    def replica_in_sync(self):
        primary = self.server_on(self.primary_port()) if self.sentinels else self.servers[0]
        with primary.client() as client:
            info = client.info("replication")
        return info.get("connected_slaves", 0) >= 1 and info.get("slave0", {}).get("state") == "online"

    def kill_primary(self):
        """SIGKILL the primary; the port it had."""
        port = self.primary_port()
        self.server_on(port).kill()
        return port

    def failed_over_from(self, port, timeout=30):
        """Wait until every Sentinel names another primary than `port` and that server answers as primary."""
        def moved():
            names = {int(self._sentinel(p).sentinel_get_master_addr_by_name(SERVICE)[1]) for p in self.sentinel_ports}
            if len(names) != 1 or port in names:
                return False
            with self.server_on(names.pop()).client() as client:
                return client.info("replication")["role"] == "master"
        return self.wait(moved, timeout)

    def restart_as_replica(self, port):
        """Start the killed old primary again: the Sentinels turn it into a replica of the new primary."""
        server = self.server_on(port)
        server.replica_of = self.primary_port()
        return server.start()

    @staticmethod
    def wait(predicate, timeout, pause=0.1):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if predicate():
                    return True
            except (redis.exceptions.RedisError, OSError):
                pass
            time.sleep(pause)
        return False

    def _sentinel(self, port):
        if port not in self._clients:
            self._clients[port] = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, decode_responses=True)
        return self._clients[port]

    def stop(self):
        for client in self._clients.values():
            client.close()
        self._clients = {}
        for process in self.sentinels:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
        self.sentinels = []
        for server in self.servers:
            server.stop()
