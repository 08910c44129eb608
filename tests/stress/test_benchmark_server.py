"""The benchmark's throw-away server ends with all its processes."""

import os
import signal
import time
from pathlib import Path

import pytest

from benchmarks import server

pytestmark = pytest.mark.processes


def test_the_server_ends_with_its_workers_even_a_stuck_one():
    """A worker busy with a request the client gave up on must not outlive
    the benchmark (it would take a core from the next measurements)."""
    served = server.Server()
    with served:
        workers = server.Proc(served.proc.pid).pids()
        assert workers and workers != [served.proc.pid]
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)  # deaf to the master's SIGTERM
        served.grace = 0.5
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
