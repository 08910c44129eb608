"""A real multi-worker ``placement-api`` starts, and keeps serving, whatever
state the database is in: fresh, missing standard names, away when a worker
is respawned, away when the server starts.

Before serving, the master connects (retrying as configured), migrates if
asked and syncs the standard names; workers need no database to boot, so a
worker respawned during an outage boots, answers 503 meanwhile, and serves
once the database is back.
"""

import os
import signal
import subprocess
import sys
import time

import os_traits
import pytest

from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from placer.db.tables import traits
from tests.helpers.databases import ThrowAwayDatabase
from tests.helpers.faults import Outage
from tests.helpers.processes import PlacementApi as Server
from tests.helpers.processes import stop_process

pytestmark = [pytest.mark.stress, pytest.mark.processes]

TIME_LIMIT = 90.0  # seconds: a safety stop for slow machines, not an assertion


@pytest.fixture
def server():
    started = []

    def start(*args, **kwargs) -> Server:
        started.append(Server(*args, **kwargs))
        return started[-1]

    yield start
    for s in started:
        s.stop()


@pytest.fixture
def outage(backend, tmp_path):
    o = Outage(backend, tmp_path)
    yield o
    o.close()


def _all_traits(server: Server) -> list[str]:
    status, _, body = server.request("/traits")
    assert status == 200, body
    return sorted(body["traits"])


@pytest.mark.parametrize("start_from", ["empty", "names_missing"])
def test_four_workers_start_on_a_fresh_or_upgraded_database(backend, tmp_path, server,
                                                            start_from):
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    try:
        if start_from == "names_missing":  # as after an os-traits upgrade
            engine = db_engine.create_engine(throw_away.url)
            schema_migrations.upgrade(engine)
            db_engine.Database(engine).write(sync.sync_standard_names)
            with engine.begin() as conn:
                conn.execute(traits.delete().where(traits.c.name.like("COMPUTE\\_%",
                                                                      escape="\\")))
            engine.dispose()
        s = server(tmp_path, throw_away.url, 4, sync_on_startup=True)
        s.wait_for("answer", lambda: s.status("/") == 200)
        assert _all_traits(s) == sorted(os_traits.get_traits())
        assert "Worker failed to boot" not in s.log()
        s.stop()
        assert s.proc.returncode == 0, s.excerpt()
    finally:
        throw_away.drop()


def test_worker_respawned_while_the_database_is_away(outage, tmp_path, server):
    s = server(tmp_path, outage.url, 1, sync_on_startup=True)
    s.wait_for("answer", lambda: s.status("/resource_providers") == 200)
    [first] = s.workers()

    outage.cut()
    os.kill(first, signal.SIGKILL)
    s.wait_for("a new worker", lambda: len(s.workers()) == 2)
    # GET / needs no database: the new worker booted and serves
    s.wait_for("answer from the new worker", lambda: s.status("/") == 200)
    status, headers, body = s.request("/resource_providers")
    assert status == 503, body
    assert headers["Retry-After"] == "1"
    assert "The database is unavailable" in body["errors"][0]["detail"]

    outage.restore()
    assert s.status("/resource_providers") == 200
    assert s.proc.poll() is None


def test_server_waits_for_the_database_at_start(outage, tmp_path, server):
    """[placement_database] max_retries = -1: retry, a warning each time, forever."""
    outage.cut()
    s = server(tmp_path, outage.url, 2, sync_on_startup=True, max_retries=-1,
               retry_interval=1)
    s.wait_for("two failed attempts", lambda: s.log().count("SQL connection failed") >= 2)
    assert s.status("/") is None  # not serving: the workers are not forked yet

    outage.restore()
    s.wait_for("answer", lambda: s.status("/resource_providers") == 200)
    assert _all_traits(s) == sorted(os_traits.get_traits())


def test_server_gives_up_after_max_retries(outage, tmp_path):
    outage.cut()
    s = Server(tmp_path, outage.url, 2, max_retries=2, retry_interval=0)
    try:
        s.proc.wait(timeout=TIME_LIMIT)
    finally:
        s.stop()
    assert s.proc.returncode == 1
    log = s.log()
    assert log.count("SQL connection failed") == 2, log
    assert "placement-api: the database cannot be reached" in log
    assert "Booting worker" not in log


# placement-api's gunicorn server around a trivial app, whose workers wait,
# between the fork and gunicorn setting their signal handlers, until the
# master's SIGTERM is pending (held: the master spawns them with it blocked).
_SLOW_BOOT = """
import pathlib, signal, sys, time
from placer.cli.api import _Server

def app(environ, start_response):
    start_response("200 OK", [])
    return [b""]

def post_fork(server, worker):
    pathlib.Path(sys.argv[1]).write_text(str(worker.pid))
    deadline = time.monotonic() + 60  # a safety stop; the test fails without the signal
    while signal.SIGTERM not in signal.sigpending() and time.monotonic() < deadline:
        time.sleep(0.01)

_Server(lambda: app, {"bind": "127.0.0.1:0", "workers": 1, "post_fork": post_fork,
                      "graceful_timeout": 20, "control_socket_disable": True}).run()
"""


def test_a_worker_stopped_while_it_boots_exits(tmp_path):
    """The master's SIGTERM reaches a worker before its handlers are set (as
    when the server is stopped while it starts or respawns one): the worker
    exits on its own once booted, instead of serving until the master kills
    it at the end of its graceful timeout."""
    booting, log_path = tmp_path / "booting", tmp_path / "gunicorn.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-c", _SLOW_BOOT, str(booting)],
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + TIME_LIMIT
        while not booting.exists() or not booting.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.01)
        proc.terminate()
        proc.wait(timeout=TIME_LIMIT)
    finally:
        stop_process(proc)
    log = log_path.read_text()
    assert proc.returncode == 0, log
    assert f"Worker exiting (pid: {booting.read_text()})" in log, log
    assert "SIGKILL" not in log, log
