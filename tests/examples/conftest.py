import subprocess
import sys
import threading
from pathlib import Path

import pytest
from waitress import create_server

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def served(app):
    """The real application on 127.0.0.1, as `scripts/serve` runs it."""
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(timeout=10)


def run_example(script, base_url, key, *extra, timeout=120):
    """The example in a separate process, as a newcomer runs it."""
    command = [sys.executable, str(EXAMPLES / script), "--base-url", base_url, "--key", key, *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
