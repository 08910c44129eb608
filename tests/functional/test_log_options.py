"""oslo.log's options send Placer's lines where placement.conf says, as the
WSGI servers load it: each test runs a fresh Python process that imports
``placement.wsgi.api`` with its own placement.conf, sends a few requests to
``application`` and exits; the test then reads the lines where the option put
them (a file, stdout through a ``log_config_append`` file, syslog's
/dev/log socket, the systemd journal).

Every logger of Placer's own code is under ``placement.`` (the reference's
names), so a logging.conf that configures the ``placement`` logger, as
openstack-helm's does, gets all of them.
"""

import json
import os
import re
import select
import socket
import subprocess
import sys
import syslog
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

TIME_LIMIT = 60.0  # seconds for each subprocess: a safety stop, not an assertion
DEV_LOG = "/dev/log"

# What a WSGI server does: import the module (which builds the app from
# $OS_PLACEMENT_CONFIG_DIR/placement.conf), then call ``application``.
# argv[1]: the requests, as JSON [[method, path, body or null], ...];
# argv[2]: where to write this process's pid and the [status, body] answers.
DRIVER = """
import json, os, sys
import webob

import placement.wsgi.api

def call(method, path, body):
    req = webob.Request.blank(path, method=method)
    req.headers.update({"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.39"})
    if body is not None:
        req.content_type = "application/json"
        req.body = json.dumps(body).encode()
    resp = req.get_response(placement.wsgi.api.application)
    return [resp.status_code, resp.text]

answers = [call(*request) for request in json.loads(sys.argv[1])]
with open(sys.argv[2], "w") as f:
    json.dump({"pid": os.getpid(), "answers": answers}, f)
"""

LIST_AND_CREATE = [["GET", "/resource_providers", None],
                   ["POST", "/resource_providers", {"name": "logged"}]]

# oslo.log's default logging_context_format_string and log_date_format (the
# same date format as helm's logging.conf gives its context formatter)
LINE = (r"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{{3}} {pid} {level} {name} "
        r"\[None req-[0-9a-f-]{{36}} ")

# openstack-helm's default logging.conf for placement, verbatim
HELM_LOGGING_CONF = (Path(__file__).parents[1] / "data" / "openstack-helm-logging.conf"
                     ).read_text()

# A stand-in for systemd-python's journal module (not installed): each
# journal.send(MESSAGE, **fields) becomes a JSON line in $FAKE_JOURNAL.
FAKE_JOURNAL = """
import json, os

def send(MESSAGE, **fields):
    with open(os.environ["FAKE_JOURNAL"], "a") as f:
        f.write(json.dumps({"MESSAGE": MESSAGE, **fields}, default=str) + "\\n")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _conf_text(connection: str, default: dict) -> str:
    lines = ["[DEFAULT]"] + [f"{k} = {v}" for k, v in default.items()]
    lines += ["[api]", "auth_strategy = noauth2",
              "[placement_database]", f"connection = {connection}", "sync_on_startup = True"]
    return "\n".join(lines) + "\n"


class Run:
    """One subprocess's outcome: its pid, the answers, its stdout and stderr."""

    def __init__(self, result: dict, stdout: str, stderr: str):
        self.pid: int = result["pid"]
        self.answers: list = result["answers"]
        self.stdout = stdout
        self.stderr = stderr

    def statuses(self) -> list[int]:
        return [status for status, _ in self.answers]


class Deployment:
    """A placement.conf in ``tmp_path``/etc, and the process that serves it."""

    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.etc = tmp_path / "etc"
        self.etc.mkdir()
        self.cwd = tmp_path / "cwd"  # the process's working directory, empty
        self.cwd.mkdir()
        self.driver = tmp_path / "driver.py"
        self.driver.write_text(DRIVER)
        self.result = tmp_path / "result.json"
        self.out = tmp_path / "stdout.txt"
        self.err = tmp_path / "stderr.txt"

    def configure(self, connection: str | None = None, **default) -> None:
        connection = connection or f"sqlite:///{self.tmp}/p.sqlite"
        (self.etc / "placement.conf").write_text(_conf_text(connection, default))

    def env(self, **extra) -> dict:
        env = {k: v for k, v in os.environ.items() if k != "OS_PLACEMENT_CONFIG_DIR"}
        env["OS_PLACEMENT_CONFIG_DIR"] = str(self.etc)
        env.update(extra)
        return env

    def argv(self, requests: list) -> list[str]:
        return [sys.executable, str(self.driver), json.dumps(requests), str(self.result)]

    def start(self, requests: list, prefix: list[str] | None = None,
              **env) -> subprocess.Popen:
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            return subprocess.Popen((prefix or []) + self.argv(requests), cwd=self.cwd,
                                    stdout=out, stderr=err, env=self.env(**env))

    def finish(self, proc: subprocess.Popen, timeout: float = TIME_LIMIT) -> Run:
        """The outcome of ``proc``, once it exits (killed after ``timeout``)."""
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stdout, stderr = self.out.read_text(), self.err.read_text()
        assert proc.returncode == 0, f"exit {proc.returncode}:\n{stderr[-4000:]}"
        return Run(json.loads(self.result.read_text()), stdout, stderr)

    def run(self, requests: list = LIST_AND_CREATE, **env) -> Run:
        return self.finish(self.start(requests, **env))


@pytest.fixture
def deployment(tmp_path) -> Deployment:
    return Deployment(tmp_path)


def _matching(lines, *parts: str) -> list[str]:
    return [line for line in lines if all(p in line for p in parts)]


def _assert_request_lines(lines: list[str], run: Run) -> None:
    """The INFO request lines of LIST_AND_CREATE, in oslo.log's default format."""
    assert run.statuses() == [200, 200], run.answers
    start = LINE.format(pid=run.pid, level="INFO", name=re.escape("placement.requestlog"))
    for request in ('"GET /resource_providers" status: 200 ',
                    '"POST /resource_providers" status: 200 '):
        found = _matching(lines, request)
        assert len(found) == 1, lines
        assert re.match(start, found[0]), found[0]
        assert found[0].endswith(" microversion: 1.39"), found[0]


def test_log_file_receives_the_lines(deployment):
    log = deployment.tmp / "var" / "placement-api.log"
    log.parent.mkdir()
    deployment.configure(log_file=log)
    run = deployment.run()
    _assert_request_lines(log.read_text().splitlines(), run)
    assert "placement.requestlog" not in run.stdout  # a log file replaces stdout
    assert "placement.requestlog" not in run.stderr


def test_relative_log_file_is_in_log_dir(deployment):
    log_dir = deployment.tmp / "logs"
    log_dir.mkdir()
    deployment.configure(log_dir=log_dir, log_file="placement-api.log")
    run = deployment.run()
    _assert_request_lines((log_dir / "placement-api.log").read_text().splitlines(), run)
    assert list(deployment.cwd.iterdir()) == []  # not relative to the working directory
    assert "placement.requestlog" not in run.stdout


def test_openstack_helm_logging_conf(deployment):
    """helm's logging.conf: the ``placement`` logger writes to stdout, the root
    logger to a null handler. Lines of every logger under ``placement.`` reach
    stdout: the request log, and the database's ERROR when it is away."""
    logging_conf = deployment.etc / "logging.conf"
    logging_conf.write_text(HELM_LOGGING_CONF)
    # nothing listens there: the database is unreachable, requests needing it answer 503
    port = _free_port()
    away = f"postgresql+psycopg://u@127.0.0.1:{port}/x"
    deployment.configure(away, debug="false", use_syslog="false",
                         log_config_append=logging_conf)
    run = deployment.run([["GET", "/", None], ["GET", "/resource_providers", None]])
    assert run.statuses() == [200, 503], run.answers
    lines = run.stdout.splitlines()
    requestlog = LINE.format(pid=run.pid, level="INFO", name=re.escape("placement.requestlog"))
    for request in ('"GET /" status: 200 ', '"GET /resource_providers" status: 503 '):
        found = _matching(lines, request)
        assert len(found) == 1, lines
        assert re.match(requestlog, found[0]), found[0]
    unavailable = _matching(lines, " placement.db ", "Database unavailable: ")
    assert unavailable, lines
    db_line = LINE.format(pid=run.pid, level="ERROR", name=re.escape("placement.db"))
    assert re.match(db_line, unavailable[0]), unavailable[0]
    assert f'"127.0.0.1", port {port} failed' in unavailable[0]  # the driver's reason


def _bind_datagram_socket(path: Path | str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.bind(str(path))
    except BaseException:
        sock.close()
        raise
    return sock


def _receive_while_running(sock: socket.socket, proc: subprocess.Popen) -> list[str]:
    """Every datagram ``sock`` receives until ``proc`` exits and none is left.
    Read while it runs: a full socket queue would block its writes."""
    deadline = time.monotonic() + TIME_LIMIT
    received = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([sock], [], [], 0.1)
        if ready:
            received.append(sock.recv(65536).decode(errors="replace"))
        elif proc.poll() is not None:
            break
    return received


def test_use_syslog_sends_the_lines_to_dev_log(deployment):
    """OSSysLogHandler calls libc's syslog(3), which sends each line as a
    datagram to /dev/log: ``<facility * 8 + priority>`` and the line.
    Without a syslog daemon here, the test listens on /dev/log itself (in a
    mount namespace of its own, over the machine's socket, if there is one)."""
    deployment.configure(use_syslog="true", syslog_log_facility="local3")
    if os.path.lexists(DEV_LOG):
        # ours mounted over the machine's /dev/log, for the subprocess only
        path = deployment.tmp / "log.sock"
        prefix = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                  f'mount --bind "$0" {DEV_LOG} && exec "$@"', str(path)]
    else:
        path, prefix = Path(DEV_LOG), []
    sock = _bind_datagram_socket(path)
    try:
        proc = deployment.start(LIST_AND_CREATE, prefix=prefix)
        try:
            received = _receive_while_running(sock, proc)
        finally:
            run = deployment.finish(proc, timeout=5)  # it has exited, or ran out of time
    finally:
        sock.close()
        if not prefix:
            os.unlink(DEV_LOG)
    info_local3 = f"<{syslog.LOG_LOCAL3 | syslog.LOG_INFO}>"
    found = _matching(received, "placement.requestlog", '"GET /resource_providers" status: 200 ')
    assert len(found) == 1, received
    assert found[0].startswith(info_local3), found[0]
    # after the priority: a date, and the identifier, oslo.log's binary name
    header, _, line = found[0].partition(": ")
    assert header.endswith(f" {deployment.driver.name}"), found[0]
    _assert_request_lines([d.partition(": ")[2] for d in received], run)
    assert line in run.stdout  # syslog is in addition to stdout


def test_use_journal_sends_the_lines_to_the_journal(deployment):
    """OSJournalHandler hands each line to systemd-python's journal.send, with
    the record's fields; a fake journal module records the calls."""
    fake = deployment.tmp / "fake"
    (fake / "systemd").mkdir(parents=True)
    (fake / "systemd" / "__init__.py").write_text("")
    (fake / "systemd" / "journal.py").write_text(textwrap.dedent(FAKE_JOURNAL))
    journal = deployment.tmp / "journal.jsonl"
    deployment.configure(use_journal="true", syslog_log_facility="local3")
    path = os.pathsep.join(p for p in (str(fake), os.environ.get("PYTHONPATH")) if p)
    run = deployment.run(PYTHONPATH=path, FAKE_JOURNAL=str(journal))
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    _assert_request_lines([e["MESSAGE"] for e in entries], run)
    found = [e for e in entries if '"GET /resource_providers" status: 200 ' in e["MESSAGE"]]
    assert len(found) == 1, entries
    entry = found[0]
    assert entry["LOGGER_NAME"] == "placement.requestlog"
    assert entry["LOGGER_LEVEL"] == "INFO"
    assert entry["PRIORITY"] == syslog.LOG_INFO
    assert entry["SYSLOG_FACILITY"] == syslog.LOG_LOCAL3
    assert entry["SYSLOG_IDENTIFIER"] == deployment.driver.name
    assert entry["CODE_FILE"].endswith(os.path.join("placer", "http", "requestlog.py"))
    assert entry["REQUEST_ID"].startswith("req-")
    assert f" {entry['REQUEST_ID']} " in entry["MESSAGE"]
    assert "placement.requestlog" not in run.stdout  # the journal replaces stdout


# Imports every module of Placer (alembic's env.py files run only inside a
# migration: one is run), then reports the loggers that exist and the
# module-level loggers of Placer's modules.
LOGGER_CENSUS = """
import importlib, json, logging, pkgutil, sys
import sqlalchemy as sa

import placement
import placer
from placer.db import schema_migrations

ALEMBIC_ENVS = ("placer.db.alembic.env", "placer.db.alembic_placer.env")
modules = []
for package in (placer, placement):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name not in ALEMBIC_ENVS:
            modules.append(importlib.import_module(info.name))
schema_migrations.upgrade(sa.create_engine(sys.argv[1]))
owned = {}
for module in modules + [placer, placement]:
    for attr, value in vars(module).items():
        if isinstance(value, logging.LoggerAdapter):
            value = value.logger
        if isinstance(value, logging.Logger):
            owned[module.__name__ + "." + attr] = value.name
print(json.dumps({"modules": [m.__name__ for m in modules],
                  "loggers": sorted(logging.Logger.manager.loggerDict),
                  "owned": owned}))
"""


def test_every_logger_of_placer_is_under_placement(deployment):
    deployment.configure()
    out = subprocess.run(
        [sys.executable, "-c", LOGGER_CENSUS, f"sqlite:///{deployment.tmp}/census.sqlite"],
        cwd=deployment.cwd, env=deployment.env(), capture_output=True, text=True,
        timeout=TIME_LIMIT)
    assert out.returncode == 0, out.stderr[-4000:]
    census = json.loads(out.stdout.splitlines()[-1])
    assert {"placement.wsgi.api", "placer.http.requestlog", "placer.db.engine",
            "placer.cli.manage"} <= set(census["modules"])
    assert [name for name in census["loggers"] if name.startswith("placer")] == []
    owned = census["owned"]
    assert owned["placer.http.requestlog.LOG"] == "placement.requestlog"
    assert owned["placer.db.engine.LOG"] == "placement.db"
    assert {where: name for where, name in owned.items()
            if not name.startswith("placement.")} == {}
