import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(script, base_url, key, *extra, timeout=120):
    """The example in a separate process, as a newcomer runs it."""
    command = [sys.executable, str(EXAMPLES / script), "--base-url", base_url, "--key", key, *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
