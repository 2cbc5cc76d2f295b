"""Debian's PostgreSQL 15 as a primary and streaming standbys on loopback, each a data folder and a port of its
own, for the failover rehearsal: `pg_basebackup -R` makes a standby, `pg_ctl promote` a primary, `pg_rewind`
turns a dead primary into a standby of the new one (docs/deployment.md, "A primary that can die").

Every node has the same postgresql.conf (pg_basebackup copies it) and names itself in `application_name`, so
`synchronous_standby_names = 'ANY 1 (...every node...)'` holds whichever node is primary: a commit waits until
one other node has the WAL on disk, and losing one standby of two does not stop writes. As root, the servers
run as Debian's `postgres` user, which owns the data folders."""

import os
import pwd
import shutil
import signal
import subprocess
import time
from pathlib import Path

import psycopg

from tests.common.ports import free_port

BIN = Path("/usr/lib/postgresql/15/bin")
SUPERUSER = "postgres"


def synchronous_standby_names(names):
    return f"ANY 1 ({', '.join(names)})"


def run_as_owner(command, **kw):
    """`command` as the data folders' owner (Debian's `postgres` when run as root); RuntimeError on failure."""
    if os.geteuid() == 0:
        command = ["runuser", "-u", SUPERUSER, "--", *command]
    done = subprocess.run(command, check=False, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[-8:])} exited {done.returncode}: {done.stderr.strip()[-600:]}")
    return done


def own(path):
    if os.geteuid() == 0:
        owner = pwd.getpwnam(SUPERUSER)
        for folder, _, files in os.walk(path):
            os.chown(folder, owner.pw_uid, owner.pw_gid)
            for name in files:
                os.chown(os.path.join(folder, name), owner.pw_uid, owner.pw_gid)


def _alive(pid):
    """True while `pid` runs (a zombie, dead but not yet reaped, has let go of everything and counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


class Node:
    """One PostgreSQL server: `pgdata` under the cluster's folder, listening on 127.0.0.1:`port` only."""

    def __init__(self, cluster, name, settings=None):
        self.cluster = cluster
        self.name = name
        self.port = free_port()
        self.pgdata = cluster.folder / name
        self.log = cluster.folder / f"{name}.log"
        # Settings given on the command line at every start, over the data folder's postgresql.conf (a copy
        # restored from a backup: no synchronous standby to wait for, no archiving into the live archive).
        self.settings = dict(settings or {})

    def conninfo(self, database="postgres", **extra):
        return psycopg.conninfo.make_conninfo(host="127.0.0.1", port=self.port, user=SUPERUSER, dbname=database,
                                              connect_timeout=3, **extra)

    def connect(self, database="postgres", **kw):
        return psycopg.connect(self.conninfo(database), autocommit=True, **kw)

    def sql(self, statement, params=None, database="postgres"):
        """The first row of `statement` on this node (None when it returns none)."""
        with self.connect(database) as connection:
            cursor = connection.execute(statement, params)
            return cursor.fetchone() if cursor.description else None

    def pg_ctl(self, *args, timeout=90):
        return run_as_owner([str(BIN / "pg_ctl"), "-D", str(self.pgdata), *args], timeout=timeout)

    def start(self):
        # The port on the command line: the configuration file is the same on every node. No Unix socket in
        # the data folder: it would break pg_rewind's copy, and clients come over loopback TCP; with a
        # `socket_folder` the cluster's sockets are beside the data folders (pgBackRest connects through one).
        sockets = self.cluster.socket_folder or ""
        options = " ".join([f"-c port={self.port} -c unix_socket_directories='{sockets}'",
                            *(f"-c {name}='{value}'" for name, value in self.settings.items())])
        try:
            self.pg_ctl("-l", str(self.log), "-o", options, "-w", "-t", "60", "start")
        except RuntimeError as refused:
            tail = self.log.read_text(errors="replace")[-1500:] if self.log.exists() else ""
            raise RuntimeError(f"{refused}\n{self.name}'s log ends:\n{tail}") from None
        return self

    def stop(self, mode="fast"):
        if self.pid() is not None:
            self.pg_ctl("-m", mode, "-w", "-t", "60", "stop")

    def pid(self):
        """The postmaster's pid while it runs, else None (a pid file left by a killed server may name a process
        that reused the number: only a postgres serving this folder counts)."""
        try:
            pid = int((self.pgdata / "postmaster.pid").read_text().split()[0])
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (FileNotFoundError, ValueError, IndexError, ProcessLookupError):
            return None
        return pid if command[0].endswith(b"postgres") and str(self.pgdata).encode() in command else None

    def kill(self):
        """SIGKILL the postmaster and every backend: the host gone, nothing flushed or said goodbye.

        The postmaster is stopped first so that it forks no backend between the children's listing and its
        death: a child it forked then would outlive it, keep the shared memory attached, and the next `start`
        would refuse ("pre-existing shared memory block is still in use")."""
        pid = self.pid()
        if pid is None:
            return
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            return
        children = [int(child) for child in
                    subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()]
        victims = [pid, *children]
        for victim in victims:
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while any(map(_alive, victims)) and time.monotonic() < deadline:
            time.sleep(0.05)

    def in_recovery(self):
        return self.sql("SELECT pg_is_in_recovery()")[0]

    def received_lsn(self):
        """How far this standby's WAL reaches on its disk (pg_last_wal_receive_lsn, else what it replayed)."""
        return self.sql("SELECT coalesce(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) - '0/0'")[0]

    def promote(self):
        self.pg_ctl("promote", "-w", "-t", "60")

    def follow_the_primary(self):
        """Stream from whichever other node is the primary: primary_conninfo names them all with
        `target_session_attrs=read-write`, as the service's URL does, so after a promotion the WAL receiver's
        next attempt (every `wal_retrieve_retry_interval`) finds the new primary, and its timeline, by itself."""
        others = [node for node in self.cluster.nodes if node is not self]
        conninfo = (f"host={','.join('127.0.0.1' for _ in others)} port={','.join(str(n.port) for n in others)} "
                    f"user={SUPERUSER} application_name={self.name} target_session_attrs=read-write "
                    "connect_timeout=2")
        auto = self.pgdata / "postgresql.auto.conf"
        lines = [line for line in auto.read_text().splitlines() if not line.startswith("primary_conninfo")]
        lines.append(f"primary_conninfo = '{conninfo}'")
        auto.write_text("\n".join(lines) + "\n")
        own(auto)

    def replication_conninfo(self, application_name):
        return f"host=127.0.0.1 port={self.port} user={SUPERUSER} application_name={application_name}"

    def standbys(self):
        """application_name -> sync_state of the standbys streaming from this node."""
        with self.connect() as connection:
            return dict(connection.execute("SELECT application_name, sync_state FROM pg_stat_replication").fetchall())


class Cluster:
    """`names[0]` starts as the primary, the others as its standbys."""

    def __init__(self, folder, names=("pg_a", "pg_b", "pg_c"), sockets=False, settings=""):
        """`sockets`: each node also listens on a Unix socket in `socket_folder` (beside the data folders);
        `settings`: postgresql.conf lines every node has besides the cluster's own (WAL archiving)."""
        self.folder = Path(folder)
        self.nodes = [Node(self, name) for name in names]
        self.socket_folder = self.folder / "sockets" if sockets else None
        self.settings = settings

    def url(self, database, user, **query):
        """The service's multi-host DATABASE_URL: every node, the read-write one chosen at connect."""
        hosts = "&".join(f"host=127.0.0.1:{node.port}" for node in self.nodes)
        extra = "".join(f"&{name}={value}" for name, value in query.items())
        return f"postgresql://{user}@/{database}?{hosts}&target_session_attrs=read-write{extra}"

    def primary(self):
        """The node that answers as a primary now (None while there is none)."""
        for node in self.nodes:
            try:
                if node.pid() is not None and not node.in_recovery():
                    return node
            except psycopg.OperationalError:
                continue
        return None

    def create(self, standbys=True):
        """The first node as the primary and, with `standbys`, the others as its standbys (else they are only
        named in synchronous_standby_names: a primary whose standbys are all gone)."""
        for node in self.nodes:
            node.kill()  # a server an interrupted run left behind in the folder
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        if self.socket_folder:
            self.socket_folder.mkdir()
        own(self.folder)
        first, *others = self.nodes
        run_as_owner([str(BIN / "initdb"), "-D", str(first.pgdata), "-U", SUPERUSER, "--auth=trust",
                       "-E", "UTF8", "--locale=C.UTF-8"], timeout=120)
        with open(first.pgdata / "postgresql.conf", "a") as conf:
            conf.write(f"""
listen_addresses = '127.0.0.1'
wal_level = replica
max_wal_senders = 10
wal_keep_size = '512MB'
# pg_rewind needs the hint bits logged, to bring a dead primary back as a standby.
wal_log_hints = on
hot_standby = on
# A standby whose primary went away tries primary_conninfo's hosts again after this long.
wal_retrieve_retry_interval = '1s'
synchronous_commit = on
synchronous_standby_names = '{synchronous_standby_names([node.name for node in self.nodes])}'
shared_buffers = '32MB'
max_connections = 120
{self.settings}
""")
        (first.pgdata / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n"
                                                  "host replication all 127.0.0.1/32 trust\n")
        first.start()
        for node in others if standbys else ():
            self.add_standby(node, first)
        return self

    def add_standby(self, node, primary):
        run_as_owner([str(BIN / "pg_basebackup"), "-d", primary.replication_conninfo(node.name),
                       "-D", str(node.pgdata), "-R", "-X", "stream", "--checkpoint=fast"], timeout=300)
        node.follow_the_primary()
        node.start()

    def wait_for_standbys(self, primary, count, timeout=60):
        """Until `count` standbys stream from `primary`, at least one of them synchronously."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = primary.standbys()
            if len(states) >= count and {"sync", "quorum"} & set(states.values()):
                return states
            time.sleep(0.1)
        raise RuntimeError(f"standbys of {primary.name} after {timeout} s: {primary.standbys()}")

    def most_advanced_standby(self, candidates):
        """The standby whose disk holds the most WAL: with `ANY 1`, an acknowledged commit is on at least one
        standby, not necessarily a given one, so the one promoted must be the one that went furthest."""
        reached = {}
        for node in candidates:
            try:
                reached[node] = node.received_lsn()
            except psycopg.OperationalError:
                continue
        return max(reached, key=reached.get)

    def rewind(self, old, primary):
        """The dead primary `old` made a standby of `primary` (pg_rewind finishes its crash recovery first,
        discards what it wrote that no standby acknowledged, and writes standby.signal).

        The new primary checkpoints first: pg_rewind reads its timeline from the control file, which a promotion
        updates only at its next checkpoint; before it, pg_rewind finds both on timeline 1, rewinds nothing, and
        the old primary cannot follow the new timeline."""
        primary.sql("CHECKPOINT")
        run_as_owner([str(BIN / "pg_rewind"), "-D", str(old.pgdata), "--source-server", primary.conninfo(),
                       "-R"], timeout=300)
        old.follow_the_primary()

    def stop(self):
        for node in self.nodes:
            try:
                node.stop("immediate")
            except (RuntimeError, subprocess.SubprocessError):
                node.kill()

