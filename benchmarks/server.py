"""Starting a throw-away Placer server, and reading its CPU time and memory from /proc.

The server gets a temporary directory holding its configuration (SQLite file
database unless a connection URL is given, noauth2, schema created at
start-up) and its log; ``placer={"option": value}`` adds a ``[placer]``
section (Placer's own options; the reference, like any oslo.config program,
ignores a group it does not know). With ``reference=VENV`` it is the reference
implementation installed in that virtualenv (``openstack-placement`` and
gunicorn), served by that venv's gunicorn on the same configuration; nothing
of it is imported here.
"""

import contextlib
import functools
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

CONF = """\
[api]
auth_strategy = noauth2

[placement_database]
connection = {connection}
sync_on_startup = {sync}

[placement]
max_allocation_candidates = {max_candidates}
randomize_allocation_candidates = {randomize}
"""
TIMEOUT = 600  # seconds a worker may spend on one request (gunicorn's default: 30)


class Server:
    """``with Server() as s:`` serves on ``s.url`` until the block ends."""

    def __init__(self, workers: int = 1, max_candidates: int = -1,
                 connection: str | None = None, reference: str | None = None,
                 randomize: bool = False, placer: dict | None = None):
        self.workers, self.max_candidates, self.randomize = workers, max_candidates, randomize
        self.placer = dict(placer or {})
        self.connection, self.reference = connection, reference
        self.proc: subprocess.Popen | None = None
        self.grace = 15.0  # seconds the server has to stop on SIGTERM
        self.url = ""

    def __enter__(self) -> "Server":
        self._tmp = tempfile.TemporaryDirectory(prefix="placer-bench-")
        tmp = Path(self._tmp.name)
        conf = tmp / "placement.conf"
        conf.write_text(CONF.format(
            connection=self.connection or f"sqlite:///{tmp / 'placement.sqlite'}",
            # the reference is served on a database made by Placer's migrations
            sync=not self.reference, max_candidates=self.max_candidates,
            randomize=str(self.randomize).lower()) + _section("placer", self.placer))
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        self._log = open(tmp / "server.log", "wb")  # closed in __exit__
        if self.reference:
            command = [_reference_gunicorn(self.reference), "--bind", f"127.0.0.1:{port}",
                       "--workers", str(self.workers), "--timeout", str(TIMEOUT),
                       "placement.wsgi.api:application"]
            # PYTHONPATH, if set for this process, may lead to Placer's own
            # ``placement`` package: the reference imports only its venv's
            env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                   "OS_PLACEMENT_CONFIG_DIR": str(tmp)}
        elif _accepts_timeout(_executable()):
            command = [_executable(), "--config-file", str(conf), "--bind", f"127.0.0.1:{port}",
                       "--workers", str(self.workers), "--timeout", str(TIMEOUT)]
            env = None
        else:
            # a placement-api without --timeout: gunicorn's 30 s would kill a
            # worker on a slow query, so serve the same WSGI app with gunicorn
            gunicorn = Path(_executable()).parent / "gunicorn"
            command = [str(gunicorn), "--bind", f"127.0.0.1:{port}", "--workers",
                       str(self.workers), "--timeout", str(TIMEOUT),
                       "placement.wsgi.api:application"]
            env = {**os.environ, "OS_PLACEMENT_CONFIG_DIR": str(tmp)}
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

    def __exit__(self, *exc) -> None:
        if self.proc:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(self.grace)
                except subprocess.TimeoutExpired:
                    pass
            # A worker still busy with a request (a query that timed out on
            # the client's side, such as the reference's on wide trees) would
            # keep computing after its master, using a core that the next
            # measurements need.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._log.close()
        self._tmp.cleanup()


def _section(name: str, options: dict) -> str:
    if not options:
        return ""
    # a list is a multi-valued option: one line per value
    lines = "".join(f"{key} = {_conf_value(item)}\n" for key, value in options.items()
                    for item in (value if isinstance(value, list) else [value]))
    return f"\n[{name}]\n{lines}"


def _conf_value(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


class Proc:
    """CPU time and peak RSS (VmHWM, resettable) of a server's workers.

    Workers are the children of ``pid`` (gunicorn's master); a server without
    children is measured itself. Resetting the peak needs write access to
    /proc/<pid>/clear_refs (our own processes). CPU time is what the workers
    used, whatever else runs on the machine.
    """

    def __init__(self, pid: int):
        self.pid = pid

    def pids(self) -> list[int]:
        children = []
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            children += [int(c) for c in (task / "children").read_text().split()]
        return children or [self.pid]

    def reset(self) -> float:
        """Start a new peak; returns the current RSS in MiB."""
        for pid in self.pids():
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")
        return self.read("VmRSS")

    def read(self, field: str = "VmHWM") -> float:
        """Largest value of ``field`` over the workers, in MiB."""
        return max(_status(pid, field) for pid in self.pids()) / 1024

    def cpu_seconds(self) -> float:
        """User + system CPU time of the workers so far."""
        ticks = 0
        for pid in self.pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])  # kB
    raise KeyError(field)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _executable() -> str:
    beside = Path(sys.executable).parent / "placement-api"
    found = str(beside) if beside.exists() else shutil.which("placement-api")
    if not found:
        raise RuntimeError("placement-api not found: install Placer (pip install -e .)")
    return found


@functools.cache
def _accepts_timeout(executable: str) -> bool:
    help_text = subprocess.run([executable, "--help"], capture_output=True, text=True).stdout
    return "--timeout" in help_text


def _reference_gunicorn(venv: str) -> str:
    gunicorn = Path(venv) / "bin" / "gunicorn"
    if not gunicorn.exists():
        raise RuntimeError(f"{gunicorn} not found: pip install openstack-placement gunicorn "
                           f"into {venv}")
    return str(gunicorn)


def proc_available() -> bool:
    return os.path.exists("/proc/self/status")
