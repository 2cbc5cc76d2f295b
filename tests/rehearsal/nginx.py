"""Debian's nginx as the reverse proxy of docs/deployment.md, on loopback, with its files under one folder."""

import os
import shutil
import signal
import subprocess
from pathlib import Path

# The configuration docs/deployment.md shows; {placeholders} are filled by the rehearsal.
CONFIG = """\
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 512; }}

http {{
    # $upstream_addr tells which web process answered each request.
    log_format upstream '$remote_addr "$request" $status $upstream_addr';
    access_log {root}/access.log upstream;
    client_body_temp_path {root}/client_body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
    server_tokens off;

    upstream clinicrecords {{
{servers}
        keepalive 32;
    }}

    server {{
        listen 127.0.0.1:{port};
        # The largest route body (patient imports, 10 MiB); waitress refuses more anyway.
        client_max_body_size 10m;

        location / {{
            proxy_pass http://clinicrecords;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            # Replaced, not appended: whatever X-Forwarded-For a client sends is dropped here.
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            # A process that refuses or drops the connection before answering: the next one gets the request
            # (nginx never resends a POST that reached a process, so no write runs twice).
            proxy_next_upstream error timeout;
            proxy_connect_timeout 2s;
            proxy_read_timeout 60s;
        }}
    }}
}}
"""


def config(root, port, upstream_ports):
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=10s;" for p in upstream_ports)
    return CONFIG.format(root=root, port=port, servers=servers)


class Nginx:
    def __init__(self, root, port, upstream_ports):
        self.root = Path(root)
        self.port = port
        self.upstream_ports = upstream_ports
        self.process = None

    @property
    def access_log(self):
        return self.root / "access.log"

    def start(self):
        self.root.mkdir(parents=True, exist_ok=True)
        conf = self.root / "nginx.conf"
        conf.write_text(config(self.root, self.port, self.upstream_ports))
        executable = shutil.which("nginx") or "/usr/sbin/nginx"
        # daemon off: this process is the master, so the rehearsal stops exactly what it started.
        self.process = subprocess.Popen(
            [executable, "-p", str(self.root), "-c", str(conf), "-e", str(self.root / "error.log"),
             "-g", "daemon off;" + (" user root;" if _is_root() else "")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        return self

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: finish the requests under way
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def _is_root():
    return os.geteuid() == 0
