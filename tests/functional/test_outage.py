"""While the database is away, requests get a 503 that says to come back,
without the driver's text (hosts, ports, names), which goes to the log; the
first request once it is back succeeds.
"""

import logging
import uuid

import pytest
from sqlalchemy import event

from placer import collector, wsgi
from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from tests.helpers.api import Api, assert_error, make_conf
from tests.helpers.databases import BACKENDS
from tests.helpers.faults import Outage

NETWORK_BACKENDS = [b for b in BACKENDS if b != "sqlite"]
DRIVER_WORDS = ["psycopg", "pymysql", "sqlite", "OperationalError", "sqlalchemy", "Errno"]


def _serve(outage: Outage, tmp_path):
    engine = db_engine.create_engine(outage.url)
    schema_migrations.upgrade(engine)
    db = db_engine.Database(engine)
    db.write(sync.sync_standard_names)
    return db, Api(wsgi.create_app(make_conf(tmp_path, outage.url), db))


@pytest.fixture
def outage(backend, tmp_path):
    o = Outage(backend, tmp_path)
    yield o
    o.close()


def _assert_unavailable(result, outage: Outage) -> None:
    assert_error(result, 503, "The database is unavailable")
    assert result.headers["Retry-After"] == "1"
    for leak in outage.internals + DRIVER_WORDS:
        assert leak not in result.text, result.text


def test_outage_answers_503_then_recovers(outage, tmp_path, caplog):
    db, api = _serve(outage, tmp_path)
    rp = str(uuid.uuid4())
    assert api.post("/resource_providers", json={"name": "before", "uuid": rp}).status_code == 201

    outage.cut()
    if outage.backend == "sqlite":
        db.dispose()  # open SQLite files survive a rename: only new connections fail
    with caplog.at_level(logging.ERROR, logger="placement.db"):
        _assert_unavailable(api.get("/resource_providers", version="1.39"), outage)
        _assert_unavailable(
            api.post("/resource_providers", json={"name": "during"}, version="1.39"), outage)
        _assert_unavailable(api.get(f"/resource_providers/{rp}/inventories"), outage)
    logged = [r.getMessage() for r in caplog.records if r.name == "placement.db"]
    assert len(logged) == 3 and all(m.startswith("Database unavailable: ") for m in logged)
    # the operator sees what the driver said
    assert any(word in " ".join(logged) for word in
               ("refused", "closed", "Lost connection", "unable to open")), logged

    outage.restore()
    result = api.get("/resource_providers")
    assert result.status_code == 200, result.text
    assert [p["uuid"] for p in result.json["resource_providers"]] == [rp]
    db.dispose()


@pytest.mark.parametrize("backend", NETWORK_BACKENDS, indirect=True)
def test_connection_lost_in_the_middle_of_a_write(outage, tmp_path, caplog):
    """The server goes away between two statements of a transaction."""
    db, api = _serve(outage, tmp_path)
    statements = []

    @event.listens_for(db.engine, "before_cursor_execute")
    def _cut_after_first(conn, cursor, statement, params, context, executemany):
        statements.append(statement)
        if len(statements) == 2:
            outage.cut()

    with caplog.at_level(logging.ERROR, logger="placement.db"):
        _assert_unavailable(api.post("/resource_providers", json={"name": "cut"}), outage)
    event.remove(db.engine, "before_cursor_execute", _cut_after_first)
    assert len(statements) == 2
    assert any(r.getMessage().startswith("Database unavailable: ") for r in caplog.records)

    outage.restore()
    assert api.get("/resource_providers").json == {"resource_providers": []}
    assert api.post("/resource_providers", json={"name": "cut"}).status_code == 201
    db.dispose()


def test_wsgi_app_built_during_an_outage(outage, tmp_path, monkeypatch, caplog):
    """``init_application`` (behind ``placement.wsgi.api``) builds the app
    without the database, even with ``max_retries = -1`` (kolla-ansible's),
    which would wait for ever: requests get a 503 while it is away, and the
    first one after it is back migrates (``sync_on_startup``) and is served."""
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "placement.conf").write_text(
        "[api]\nauth_strategy = noauth2\n"
        f"[placement_database]\nconnection = {outage.url}\nsync_on_startup = True\n"
        "max_retries = -1\n")
    monkeypatch.setenv("OS_PLACEMENT_CONFIG_DIR", str(etc))
    monkeypatch.setattr(collector, "tune", lambda: None)  # keep pytest's collector as it is
    monkeypatch.setattr("oslo_log.log.setup", lambda *a, **k: None)  # and its logging

    outage.cut()
    api = Api(wsgi.init_application())
    with caplog.at_level(logging.ERROR, logger="placement.db"):
        _assert_unavailable(api.get("/resource_providers"), outage)
        _assert_unavailable(api.post("/resource_providers", json={"name": "x"}), outage)
    assert sum(r.getMessage().startswith("Database unavailable: ")
               for r in caplog.records) == 2
    assert api.get("/", version="1.39").status_code == 200  # the root needs no database

    outage.restore()
    result = api.get("/resource_providers")
    assert result.status_code == 200, result.text
    assert result.json == {"resource_providers": []}
    assert api.get("/resource_classes/VCPU", version="1.39").status_code == 200  # synced


# -- pooled connections are not pinged: a dead one is found by the first statement ------

STALE = "A pooled database connection was found closed"


@pytest.mark.parametrize("backend", NETWORK_BACKENDS, indirect=True)
def test_first_request_after_a_quiet_outage_succeeds(outage, tmp_path, caplog):
    """The database goes and comes back between two requests: the pooled
    connection the next request gets is dead. Its first statement finds it
    so, and the transaction runs again on a new connection: reads and
    writes succeed, each write done once; the health check too."""
    db, api = _serve(outage, tmp_path)
    assert api.get("/resource_providers").status_code == 200  # a connection in the pool
    rp = str(uuid.uuid4())
    assert api.post("/resource_providers", json={"name": "after", "uuid": rp}).status_code == 201
    for request in (lambda: api.get("/resource_providers"),
                    lambda: api.post("/resource_providers", json={"name": "after 2"}),
                    lambda: api.get("/healthcheck", token=None),
                    lambda: api.get("/usages?project_id=p", version="1.39"),
                    # reads on the driver's cursor (db/statements.py)
                    lambda: api.get("/resource_classes/VCPU", version="1.39"),
                    lambda: api.get(f"/resource_providers/{rp}/inventories"),
                    lambda: api.get(f"/resource_providers?in_tree={rp}", version="1.39")):
        outage.cut()
        outage.restore()
        with caplog.at_level(logging.WARNING, logger="placement.db"):
            caplog.clear()
            result = request()
        assert result.status_code in (200, 201), result.text
        unavailable = [r for r in caplog.records if r.getMessage().startswith("Database unav")]
        assert unavailable == []
    names = [p["name"] for p in api.get("/resource_providers").json["resource_providers"]]
    assert names == ["after", "after 2"]
    db.dispose()


@pytest.mark.parametrize("backend", NETWORK_BACKENDS, indirect=True)
def test_a_dead_pooled_connection_is_run_again_once(outage, tmp_path, caplog):
    """The retry is for a connection found dead before anything was done:
    one more try, on a new connection, and a 503 if that fails too."""
    db, api = _serve(outage, tmp_path)
    assert api.get("/resource_providers").status_code == 200
    outage.cut()
    with caplog.at_level(logging.WARNING, logger="placement.db"):
        _assert_unavailable(api.get("/resource_providers"), outage)
    messages = [r.getMessage() for r in caplog.records if r.name == "placement.db"]
    assert [m[:len(STALE)] for m in messages if m.startswith(STALE)] == [STALE]
    assert sum(m.startswith("Database unavailable: ") for m in messages) == 1
    outage.restore()
    assert api.get("/resource_providers").status_code == 200
    db.dispose()


@pytest.mark.parametrize("backend", NETWORK_BACKENDS, indirect=True)
def test_no_retry_after_a_statement_has_run(outage, tmp_path, caplog):
    """A connection lost after the first statement is a 503, not a second
    run: the transaction is not run again once something was done."""
    db, api = _serve(outage, tmp_path)
    statements = []

    @event.listens_for(db.engine, "before_cursor_execute")
    def _cut_after_first(conn, cursor, statement, params, context, executemany):
        statements.append(statement)
        if len(statements) == 2:
            outage.cut()
            outage.restore()  # the connection is dead, a new one would not be

    with caplog.at_level(logging.WARNING, logger="placement.db"):
        _assert_unavailable(api.post("/resource_providers", json={"name": "cut"}), outage)
    event.remove(db.engine, "before_cursor_execute", _cut_after_first)
    assert len(statements) == 2
    assert not any(r.getMessage().startswith(STALE) for r in caplog.records)
    assert api.get("/resource_providers").json == {"resource_providers": []}
    db.dispose()
