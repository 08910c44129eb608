"""What the deployment-tool tests share: Placer installed as the tools install
it, and private uwsgi and Apache servers started with the tools' own keys.

Debian's uwsgi python3 plugin and mod_wsgi link Debian's Python
(/usr/bin/python3), so the venvs here are made from it, not from the Python
running the tests. Apache's processes run as www-data, which cannot read
pytest's temporary directories (root's, mode 700): these live in /var/tmp.
"""

import contextlib
import fcntl
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.helpers.databases import IN_CI

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
UPPER_CONSTRAINTS = DATA / "upper-constraints.txt"
SYSTEM_PYTHON = "/usr/bin/python3"
DEBIAN_UWSGI = "/usr/bin/uwsgi"
APACHE = "/usr/sbin/apache2"
APACHE_MODULES = Path("/usr/lib/apache2/modules")
APACHE_USER = "www-data"
HEADERS = {"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.39"}
TIME_LIMIT = 120.0  # seconds: a safety stop for slow machines, not an assertion
NEEDS = {  # what .ci/run installs from Debian's packages
    SYSTEM_PYTHON: "python3-venv", DEBIAN_UWSGI: "uwsgi",
    "/usr/lib/uwsgi/plugins/python3_plugin.so": "uwsgi-plugin-python3",
    APACHE: "apache2", str(APACHE_MODULES / "mod_wsgi.so"): "libapache2-mod-wsgi-py3",
}


def require_debian_packages() -> None:
    missing = sorted({pkg for path, pkg in NEEDS.items() if not os.path.exists(path)})
    if missing:
        message = f"Debian packages missing: {' '.join(missing)} (.ci/run installs them)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


def shared_dir(prefix: str) -> Path:
    """A new directory that Apache's user can read (and write, for SQLite)."""
    path = Path(tempfile.mkdtemp(prefix=f"placer-{prefix}-", dir="/var/tmp"))
    path.chmod(0o755)
    return path


def run(argv: list, **kwargs) -> subprocess.CompletedProcess:
    """Run a step that must succeed; its output is in the failure message."""
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          timeout=kwargs.pop("timeout", 900), **kwargs)
    assert done.returncode == 0, f"{argv}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def build_sdist(out: Path) -> Path:
    """Placer's source archive, as a release would publish it. One build at
    a time (setuptools stages the archive in the checkout itself, and two
    test workers building at once remove each other's files)."""
    with open(Path(tempfile.gettempdir()) / "placer-sdist.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run([ROOT / ".venv" / "bin" / "python", "-m", "build", "--sdist", "--outdir", out, ROOT])
    (archive,) = out.glob("openstack_placement-*.tar.gz")
    return archive


def make_venv(path: Path, system_site_packages: bool = False) -> Path:
    argv = [SYSTEM_PYTHON, "-m", "venv", path]
    run(argv + (["--system-site-packages"] if system_site_packages else []))
    return path


def pip_install(venv: Path, *args, cwd=None) -> None:
    run([venv / "bin" / "python", "-m", "pip", "install", "-q", "-c", UPPER_CONSTRAINTS, *args],
        cwd=cwd)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ini(section: str, items: list[tuple[str, object]]) -> str:
    """An ini file in the tools' order, repeated keys allowed (uwsgi reads them all)."""
    return f"[{section}]\n" + "".join(f"{k} = {v}\n" for k, v in items)


def request(port: int, method: str, path: str, body: dict | None = None,
            headers: dict | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        sent = dict(HEADERS if headers is None else headers)
        if body is not None:
            sent["Content-Type"] = "application/json"
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=sent)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


class Server:
    """A server process in its own session, its output in ``log``."""

    def __init__(self, argv: list, log: Path, env: dict | None = None, cwd=None):
        self.log = log
        with open(log, "ab") as out:
            self.proc = subprocess.Popen([str(a) for a in argv], stdout=out,
                                         stderr=subprocess.STDOUT, cwd=cwd,
                                         env={**os.environ, **(env or {})},
                                         start_new_session=True)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_serving(self, port: int, path: str = "/", log: Path | None = None) -> int:
        """The status of the first answer to GET ``path``, once the port answers."""
        deadline = time.monotonic() + TIME_LIMIT
        while True:
            try:
                return request(port, "GET", path, headers={})[0]
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    shown = (log or self.log).read_text(errors="replace")[-4000:]
                    pytest.fail(f"no server on port {port}:\n{shown}")
                time.sleep(0.2)

    def wait_exit(self) -> int:
        try:
            return self.proc.wait(timeout=TIME_LIMIT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server did not exit:\n{self.text()[-4000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # uwsgi reloads on SIGTERM without die-on-term
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):  # the group may be gone
            os.killpg(self.proc.pid, signal.SIGKILL)  # our own process group only
        self.proc.wait()


# a private server: its own root, pid file, locks and logs
APACHE_SERVER = """\
ServerRoot {root}
ServerName localhost
PidFile {root}/httpd.pid
DefaultRuntimeDir {root}
Mutex file:{root} default
ErrorLog {root}/error.log
LogLevel info
User {user}
Group {user}
"""
APACHE_BASE = APACHE_SERVER + """\
Listen 127.0.0.1:{port}
LoadModule mpm_event_module {modules}/mod_mpm_event.so
LoadModule authz_core_module {modules}/mod_authz_core.so
LoadModule wsgi_module {modules}/mod_wsgi.so
LoadModule proxy_module {modules}/mod_proxy.so
LoadModule proxy_uwsgi_module {modules}/mod_proxy_uwsgi.so
WSGISocketPrefix {root}/wsgi
"""


class Apache(Server):
    """A private Apache httpd (its own config, port, pid file and logs), never
    the system's: ``site`` is the tool's own vhost body."""

    def __init__(self, root: Path, port: int, site: str, env: dict | None = None):
        self.root = root
        conf = root / "httpd.conf"
        conf.write_text(APACHE_BASE.format(root=root, port=port, user=APACHE_USER,
                                           modules=APACHE_MODULES) + site)
        run([APACHE, "-t", "-f", conf])
        super().__init__([APACHE, "-f", conf, "-DFOREGROUND"], root / "apache.out", env)

    def error_log(self) -> str:
        path = self.root / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # httpd's own stop: it ends its children
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        super().stop()


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
