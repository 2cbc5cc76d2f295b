"""Ports for the servers the tests start on loopback, chosen below the system's ephemeral range.

A port the kernel gives for a bind to port 0 comes from the ephemeral range, the same range every outgoing
connection takes its local port from. Chosen that way and bound later (a rehearsal chooses its web ports
before Redis, its Sentinels, the migration and the seed have opened their connections), it may be some
connection's by then, and the server's bind fails. Below the range no connection is given a port: only
another test's choice can take one, and the choice is random, checked free, and never given twice here."""

import random
import socket
from pathlib import Path

EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# Where the choice starts: above the ports services are commonly configured on.
LOWEST = 10_000
_chance = random.SystemRandom()  # not the test run's seeded generator: two workers would choose alike
_given = set()


def ephemeral_start():
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def free_port():
    """A port on 127.0.0.1 that nothing holds now, outside the ephemeral range where there is room."""
    highest = ephemeral_start() - 1
    for _ in range(100):
        port = _chance.randint(LOWEST, highest) if highest > LOWEST else _port_the_system_gives()
        if port not in _given and _is_free(port):
            _given.add(port)
            return port
    raise RuntimeError(f"no free port on 127.0.0.1 between {LOWEST} and {highest}")


def _is_free(port):
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _port_the_system_gives():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
