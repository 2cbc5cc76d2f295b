"""Debian's pgBackRest over a cluster of tests/common/postgres_cluster.py: its configuration file, the stanza,
WAL archiving (the `archive_command` the cluster's nodes are given), full and differential backups taken from
the standby (`backup-standby`), and a restore to a point in time into a fresh data folder
(docs/operations.md says the same for an operator). The repository is a folder of its own, off the data
folders' path, as production keeps it off the database's disk."""

import json
import shutil
import time
from pathlib import Path

from tests.common.postgres_cluster import SUPERUSER, Node, own, run_as_owner

PGBACKREST = "/usr/bin/pgbackrest"
STANZA = "clinicrecords"


class Repository:
    """`folder` holds the configuration, pgBackRest's logs and locks, and the repository (`folder/repo`)."""

    def __init__(self, folder, stanza=STANZA):
        self.folder = Path(folder)
        self.stanza = stanza
        self.config = self.folder / "pgbackrest.conf"
        self.path = self.folder / "repo"

    def archive_settings(self, archive_timeout="60s"):
        """The postgresql.conf lines of WAL archiving into this repository."""
        return (f"archive_mode = on\n"
                f"archive_command = '{PGBACKREST} --config={self.config} --stanza={self.stanza} archive-push %p'\n"
                f"archive_timeout = '{archive_timeout}'\n")

    def write_config(self, primary, standbys=()):
        """The configuration: the primary as pg1, the standbys after it, and backups copied from a standby
        when one runs (`backup-standby`); a full backup kept twice, differentials thrice (docs/operations.md)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        for name in ("repo", "log", "lock", "spool"):
            (self.folder / name).mkdir(parents=True)
        nodes = [primary, *standbys]
        pg = "".join(f"pg{n}-path={node.pgdata}\npg{n}-port={node.port}\n"
                     f"pg{n}-socket-path={node.cluster.socket_folder}\npg{n}-user={SUPERUSER}\n"
                     for n, node in enumerate(nodes, 1))
        self.config.write_text(f"""[global]
repo1-path={self.path}
repo1-retention-full=2
repo1-retention-diff=3
log-path={self.folder / 'log'}
lock-path={self.folder / 'lock'}
spool-path={self.folder / 'spool'}
log-level-console=warn
log-level-file=info
compress-type=lz4
process-max=2
start-fast=y
archive-timeout=60
backup-standby={'y' if standbys else 'n'}

[{self.stanza}]
{pg}""")
        own(self.folder)
        return self

    def run(self, *args, timeout=300):
        return run_as_owner([PGBACKREST, f"--config={self.config}", f"--stanza={self.stanza}", *args],
                            timeout=timeout).stdout

    def create_stanza(self):
        self.run("stanza-create")
        self.run("check")

    def backup(self, kind="full"):
        """A `full` or `diff` backup; its seconds."""
        started = time.monotonic()
        self.run("backup", f"--type={kind}", timeout=900)
        return time.monotonic() - started

    def standby_replays(self):
        """How many backups waited for a standby's replay (pgBackRest's log): each one copied from the standby."""
        log = self.folder / "log" / f"{self.stanza}-backup.log"
        return log.read_text().count("INFO: replay on the standby reached") if log.exists() else 0

    def info(self):
        """pgBackRest's `info` of the stanza as JSON."""
        return json.loads(self.run("info", "--output=json"))[0]

    def restore(self, node, target_time):
        """The backup before `target_time` and the archived WAL replayed up to it, into `node`'s fresh data
        folder (never a running node's); the copy is promoted once it reaches the target. Its seconds."""
        shutil.rmtree(node.pgdata, ignore_errors=True)
        node.pgdata.mkdir(mode=0o700)
        own(node.pgdata)
        started = time.monotonic()
        self.run("restore", f"--pg1-path={node.pgdata}", "--type=time", f"--target={target_time}",
                 "--target-action=promote", timeout=900)
        return time.monotonic() - started


def restored_node(cluster, name):
    """A node of `cluster`'s folder that is no member of it: a copy restored from a backup, started without a
    synchronous standby to wait for and without archiving into the live cluster's archive."""
    return Node(cluster, name, settings={"synchronous_standby_names": "", "archive_mode": "off"})
