"""Throw-away servers, Placer's or the reference's (``reference=VENV``: the
openstack-placement installed there, served by that venv's gunicorn on the
same configuration), and their CPU time and memory read from /proc."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import sqlalchemy as sa

TIMEOUT = 600  # seconds a worker may spend on one request (gunicorn's default: 30)


def conf_text(sections: dict[str, dict]) -> str:
    """A placement.conf: {group: {option: value}}; a list is a multi-valued
    option (one line per value), a bool is written in lower case."""
    return "\n".join(f"[{group}]\n" + "".join(
        f"{key} = {str(item).lower() if isinstance(item, bool) else item}\n"
        for key, v in options.items() for item in (v if isinstance(v, list) else [v]))
        for group, options in sections.items() if options)


def stop_process(proc: subprocess.Popen, timeout: float = 20) -> None:
    """Terminate a server started in its own process group, then kill the
    group: a worker still busy with a request its client gave up on would
    keep a core the next measurements need."""
    if proc.poll() is None:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # our own process group only
    proc.wait()


class Server:
    """``with Server() as s:`` serves on ``s.url`` until the block ends, with
    ``placement`` and ``placer`` options (the reference ignores [placer])."""

    def __init__(self, workers: int = 1, connection: str | None = None,
                 reference: str | None = None, placement: dict | None = None,
                 placer: dict | None = None):
        self.workers, self.connection, self.reference = workers, connection, reference
        self.placement, self.placer = dict(placement or {}), dict(placer or {})
        self.proc: subprocess.Popen | None = None
        self.grace = 15.0  # seconds the server has to stop on SIGTERM
        self.url = ""

    def __enter__(self) -> "Server":
        self._tmp = tempfile.TemporaryDirectory(prefix="placer-bench-")
        tmp = Path(self._tmp.name)
        connection = self.connection or f"sqlite:///{tmp / 'placement.sqlite'}"
        (tmp / "placement.conf").write_text(conf_text({
            "api": {"auth_strategy": "noauth2"},
            # the reference is served on a database made by Placer's migrations
            "placement_database": {"connection": reference_connection(connection, self.reference)
                                   if self.reference else connection,
                                   "sync_on_startup": not self.reference},
            "placement": self.placement, "placer": self.placer}))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        serve = ["--bind", f"127.0.0.1:{port}", "--workers", str(self.workers),
                 "--timeout", str(TIMEOUT)]
        if self.reference:
            # PYTHONPATH, if set here, may lead to Placer's own ``placement``
            # package: the reference imports only its venv's
            env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                   "OS_PLACEMENT_CONFIG_DIR": str(tmp)}
            command = [_found(Path(self.reference) / "bin" / "gunicorn", "pip install gunicorn "
                              "(and openstack-placement, for the reference) there"),
                       *serve, "placement.wsgi.api:application"]
        else:
            env, beside = None, Path(sys.executable).parent / "placement-api"
            command = [_found(beside if beside.exists() else shutil.which("placement-api"),
                              "install Placer (pip install -e .)"),
                       "--config-file", str(tmp / "placement.conf"), *serve]
        self._log = open(tmp / "server.log", "wb")  # closed in __exit__
        # its own process group: __exit__ ends the workers too
        self.proc = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT,
                                     env=env, start_new_session=True)
        try:
            self._wait_ready(tmp / "server.log")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_ready(self, log: Path, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"server not ready after {timeout}s:\n{log.read_text()[-3000:]}")

    def restart(self) -> None:
        """After a request was given up on: its worker would go on computing."""
        self.__exit__(None, None, None)
        self.__enter__()

    def measured(self) -> "Proc | None":
        return Proc(self.proc.pid) if os.path.exists("/proc/self/status") else None

    def __exit__(self, *exc) -> None:
        if self.proc:
            stop_process(self.proc, self.grace)
        self._log.close()
        self._tmp.cleanup()


class Proc:
    """CPU time and peak RSS (VmHWM, resettable) of a server's workers: the
    children of ``pid`` (gunicorn's master), or itself without children."""

    def __init__(self, pid: int):
        self.pid = pid

    def pids(self) -> list[int]:
        return [int(c) for task in Path(f"/proc/{self.pid}/task").iterdir()
                for c in (task / "children").read_text().split()] or [self.pid]

    def reset(self) -> float:
        """Start a new peak; returns the current RSS in MiB."""
        for pid in self.pids():
            Path(f"/proc/{pid}/clear_refs").write_text("5")
        return self.read("VmRSS")

    def read(self, field: str = "VmHWM") -> float:
        """Largest value of ``field`` over the workers, in MiB."""
        lines = [line for pid in self.pids()
                 for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                 if line.startswith(field + ":")]
        return max(int(line.split()[1]) for line in lines) / 1024  # kB

    def cpu_seconds(self) -> float:
        """User + system CPU time of the workers so far."""
        ticks = 0
        for pid in self.pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")


def reference_connection(url: str, venv: str) -> str:
    """The database URL for the reference: its virtualenv has psycopg2 (the
    usual one), not always psycopg 3, which Placer's URL names."""
    parsed = sa.make_url(url)
    if parsed.drivername != "postgresql+psycopg":
        return url
    try:
        found = subprocess.run([str(Path(venv) / "bin" / "python"), "-c", "import psycopg2"],
                               capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        found = False
    return parsed.set(drivername="postgresql+psycopg2").render_as_string(
        hide_password=False) if found else url


def _found(path, hint: str) -> str:
    if not path or not Path(path).exists():
        raise RuntimeError(f"{path or 'placement-api'} not found: {hint}")
    return str(path)
