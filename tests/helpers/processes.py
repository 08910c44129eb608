"""Servers the tests start as processes."""

import os
import signal
import subprocess


def stop_process(proc: subprocess.Popen, timeout: float = 20) -> None:
    """Terminate a server started in its own process group (gunicorn's
    master stops its workers), killing the group if it does not stop."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # our own process group only
            proc.wait()
