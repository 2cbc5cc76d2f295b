"""An SMTP server on loopback as a process of its own (aiosmtpd's command, from the venv), delivering what it
receives into a Maildir the rehearsal reads. It runs in a session of its own, which the stack stops with the
other processes it started (`Stack.kill`)."""

import mailbox
import shutil
import socket
import subprocess
import sys
import time
from email import message_from_bytes, policy
from pathlib import Path

from tests.common.ports import free_port


class MailServer:
    def __init__(self, directory, port=None):
        self.directory = Path(directory)
        self.maildir = self.directory / "Maildir"
        self.port = port or free_port()
        self.process = None

    @property
    def url(self):
        return f"smtp://127.0.0.1:{self.port}"

    def start(self, timeout=20):
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory.mkdir(parents=True)
        log = (self.directory / "aiosmtpd.log").open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{self.port}",
             "-c", "aiosmtpd.handlers.Mailbox", str(self.maildir)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"aiosmtpd exited: see {self.directory / 'aiosmtpd.log'}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                    if connection.recv(100).startswith(b"220"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"aiosmtpd did not answer within {timeout} s")

    def messages(self):
        """Every message delivered so far, parsed."""
        if not self.maildir.exists():
            return []
        return [message_from_bytes(raw.as_bytes(), policy=policy.default) for raw in mailbox.Maildir(self.maildir)]
