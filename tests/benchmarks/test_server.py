"""The harness's throw-away server ends with all its processes, and passes
its options on."""

import os
import signal
import time
from pathlib import Path

import pytest

from benchmarks.harness import servers as server
from benchmarks.scenarios import fill

pytestmark = [pytest.mark.processes, pytest.mark.stress]


def test_the_server_ends_with_its_workers_even_a_stuck_one():
    """A worker busy with a request the client gave up on must not outlive
    the benchmark (it would take a core from the next measurements)."""
    served = server.Server()
    with served:
        workers = served.measured().pids()
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


def test_a_fill_order_runs_on_its_own_server_with_its_placer_options(monkeypatch):
    """The [placer] options reach the started server's configuration, and a
    tiny fill run (two schedulers, through HTTP) agrees with the API."""
    confs = []
    enter = server.Server.__enter__

    def entered(self):
        started = enter(self)
        confs.append((Path(self._tmp.name) / "placement.conf").read_text())
        return started

    monkeypatch.setattr(server.Server, "__enter__", entered)
    result = fill.run_order("pack", "flat", hosts=3, limit=5, seed=1, schedulers=2,
                            max_boots=30)
    assert "\n[placer]\ncandidate_order = pack\n" in confs[0]
    assert "randomize_allocation_candidates = false" in confs[0]
    assert result["order"] == "pack" and result["server"] == "placer"
    assert result["half"]["usages_match"] and result["half"]["hosts"] == 3
    assert result["boots"] <= 30 and result["placed"] > 0
    assert result["latency"]["candidates"]["count"] == result["boots"]
