"""Nova's compute API for the ``placement-manage audit --nova`` tests, served
by Nova's own code.

The ``nova`` package (the 2026.1 series, under that release's
upper-constraints, as the deployment tests install Placer) goes into a venv
of its own, outside Placer's (Nova pins SQLAlchemy below 2.1), made from
Debian's Python. ``nova_stage.py``, run by that venv, makes the databases
with ``nova-manage``, seeds ``WORLD`` with Nova's objects and serves Nova's
WSGI application on a loopback port (see its docstring for the two
stand-ins: Keystone and Neutron). The venv and the databases are made once
per test session, shared by the pytest-xdist workers under a lock; each
worker starts the servers it uses.

``Proxy`` stands between Placer and Nova to make what Nova itself cannot be
made to do on demand: a page that fails, an older Nova, a write to Placement
while Nova is being read.
"""

import contextlib
import fcntl
import http.client
import http.server
import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import deploy
from tests.helpers.databases import IN_CI

STAGE = Path(__file__).with_name("nova_stage.py")
NOVA = "nova>=33,<34"  # 2026.1, the series of tests/data/upper-constraints.txt
MAX_LIMIT = 3  # Nova's [api] max_limit: every listing takes several pages


def _u(n: int, kind: str = "0") -> str:
    return f"{kind * 8}-0000-4000-8000-{n:012d}"


N1, N2, N3 = _u(1, "c"), _u(2, "c"), _u(3, "c")  # compute nodes = root providers
SHARE = _u(9, "c")  # a sharing provider (DISK_GB) in N1's aggregate
AGGREGATE = _u(1, "e")
S_OK, S_EVAC, S_EVAC_MOVING, S_RESIZE, S_SHARED, S_BARE, S_BUILDING, S_TASK, \
    S_CELL2, S_CELL3 = (_u(n, "a") for n in range(1, 11))
M_EVAC, M_EVAC_MOVING, M_RESIZE, M_CONFIRMED = (_u(n, "b") for n in range(1, 5))
O_INSTANCE, O_UNTYPED, O_OTHER_TYPE = (_u(n, "d") for n in range(1, 4))

WORLD = {
    "max_limit": MAX_LIMIT,
    "hosts": [
        {"host": "host1", "node": "node1", "uuid": N1, "cell": "cell1"},
        {"host": "host2", "node": "node2", "uuid": N2, "cell": "cell1"},
        {"host": "host3", "node": "node3", "uuid": N3, "cell": "cell2"},
    ],
    "servers": [
        {"uuid": S_OK, "host": "host1", "node": "node1"},
        {"uuid": S_EVAC, "host": "host2", "node": "node2"},
        {"uuid": S_EVAC_MOVING, "host": "host2", "node": "node2"},
        {"uuid": S_RESIZE, "host": "host2", "node": "node2", "vm_state": "resized"},
        {"uuid": S_SHARED, "host": "host1", "node": "node1"},
        {"uuid": S_BARE, "host": "host1", "node": "node1"},
        {"uuid": S_BUILDING, "cell": "cell1", "vm_state": "building",
         "task_state": "scheduling"},
        {"uuid": S_TASK, "host": "host1", "node": "node1", "task_state": "migrating"},
        {"uuid": S_CELL2, "host": "host3", "node": "node3"},
        # a cell with a server but no compute host mapped (os-services shows
        # nothing of it when it is down)
        {"uuid": S_CELL3, "cell": "cell3", "vm_state": "building",
         "task_state": "scheduling"},
    ],
    "migrations": [
        # evacuated from host1, which never came back: Nova leaves the source
        # allocations until host1's compute service restarts or is deleted
        {"uuid": M_EVAC, "instance_uuid": S_EVAC, "migration_type": "evacuation",
         "status": "done", "source_compute": "host1", "source_node": "node1",
         "dest_compute": "host2", "dest_node": "node2"},
        {"uuid": M_EVAC_MOVING, "instance_uuid": S_EVAC_MOVING,
         "migration_type": "evacuation", "status": "accepted", "source_compute": "host1",
         "source_node": "node1", "dest_compute": "host2", "dest_node": "node2"},
        # a resize waiting to be confirmed: the migration holds the source
        {"uuid": M_RESIZE, "instance_uuid": S_RESIZE, "migration_type": "resize",
         "status": "finished", "source_compute": "host1", "source_node": "node1",
         "dest_compute": "host2", "dest_node": "node2"},
        {"uuid": M_CONFIRMED, "instance_uuid": S_OK, "migration_type": "resize",
         "status": "confirmed", "source_compute": "host2", "source_node": "node2",
         "dest_compute": "host1", "dest_node": "node1"},
    ],
}

# the deployments made from WORLD: (max_limit, cells down)
VARIANTS = {"up": None, "cell2-down": (MAX_LIMIT, ["cell2"]),
            "cell3-down": (1000, ["cell3"])}


@contextlib.contextmanager
def _locked(path: Path):
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def built(shared: Path) -> tuple[Path, dict[str, Path]]:
    """(the venv's python, each variant's directory), made once under ``shared``."""
    if not os.path.exists(deploy.SYSTEM_PYTHON):
        message = "Debian's python3 (with python3-venv) is needed to install Nova"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    root = shared / "nova"
    python = root / "venv" / "bin" / "python"
    dirs = {name: root / name for name in VARIANTS}
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root.parent / "nova.lock"):
        if not (root / "ready").exists():
            deploy.make_venv(root / "venv")
            deploy.pip_install(root / "venv", NOVA)
            world = root / "world.json"
            world.write_text(json.dumps(WORLD))
            deploy.run([python, STAGE, "build", dirs["up"], world])
            for name, variant in VARIANTS.items():
                if variant is not None:
                    limit, cells = variant
                    deploy.run([python, STAGE, "down", dirs["up"], dirs[name], limit, *cells])
            (root / "ready").write_text("")
    return python, dirs


class NovaApi:
    """Nova's compute API serving one deployment on a loopback port."""

    def __init__(self, python: Path, directory: Path, log: Path):
        self.port = deploy.free_port()
        self.server = deploy.Server([python, STAGE, "serve", directory, self.port], log)
        self.server.wait_serving(self.port, "/")
        self.endpoint = f"http://127.0.0.1:{self.port}/v2.1"

    def get(self, path: str, version: str = "2.69") -> dict:
        status, body = deploy.request(self.port, "GET", f"/v2.1{path}", headers={
            "X-Auth-Token": "admin", "OpenStack-API-Version": f"compute {version}"})
        assert status == 200, body
        return json.loads(body)

    def stop(self) -> None:
        self.server.stop()


class Proxy:
    """A loopback HTTP proxy in front of ``target`` (a port), which passes
    everything through except what a test asks for:

    - ``fail(pattern, after=n)``: the requests whose path matches, past the
      first ``n``, answer 500;
    - ``max_version``: the version documents claim this newest microversion;
    - ``before(pattern, fn)``: ``fn()`` runs before the first such request
      is passed on.
    """

    def __init__(self, target: int):
        self.target = target
        self.failing: tuple[re.Pattern, int] | None = None
        self.max_version: str | None = None
        self.hooks: list[tuple[re.Pattern, Callable[[], None]]] = []
        self.seen: list[str] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802 (http.server's name)
                proxy.seen.append(self.path)
                status, headers, body = proxy.answer(self.path, dict(self.headers))
                self.send_response(status)
                for name, value in headers:
                    if name.lower() not in ("content-length", "transfer-encoding",
                                            "connection"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}/v2.1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def fail(self, pattern: str, after: int = 0) -> None:
        self.failing = (re.compile(pattern), after)

    def before(self, pattern: str, fn: Callable[[], None]) -> None:
        self.hooks.append((re.compile(pattern), fn))

    def answer(self, path: str, headers: dict) -> tuple[int, list, bytes]:
        for hook in list(self.hooks):
            if hook[0].search(path):
                self.hooks.remove(hook)
                hook[1]()
        if self.failing and self.failing[0].search(path):
            pattern, after = self.failing
            if after <= 0:
                return 500, [("Content-Type", "application/json")], \
                    b'{"computeFault": {"code": 500, "message": "injected"}}'
            self.failing = (pattern, after - 1)
        conn = http.client.HTTPConnection("127.0.0.1", self.target, timeout=60)
        try:
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            if self.max_version and resp.status == 200 and b'"min_version"' in body:
                body = re.sub(rb'"version": "2\.\d+"',
                              f'"version": "{self.max_version}"'.encode(), body)
            return resp.status, resp.getheaders(), body
        finally:
            conn.close()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
