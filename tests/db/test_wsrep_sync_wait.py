"""[placement_database] mysql_wsrep_sync_wait: set on every MySQL/MariaDB
connection (Galera's causal reads), ignored by the other backends.

``wsrep_sync_wait`` is a session variable on any MariaDB server, Galera or not,
so the plain test server proves the option reaches each connection; the
Galera stress test (tests/stress/test_galera.py) proves what it does there.
"""

import pytest

from placer.db import engine as db_engine
from tests.helpers.api import make_conf
from tests.helpers.databases import BACKENDS, ThrowAwayDatabase


@pytest.fixture
def mysql_url(tmp_path):
    if "mysql" not in BACKENDS:
        pytest.skip("mysql backend not selected (PLACER_TEST_BACKENDS)")
    throw_away = ThrowAwayDatabase("mysql", tmp_path)  # skips if unreachable, fails in CI
    yield throw_away.url
    throw_away.drop()


def _session(engine, variable: str):
    with engine.connect() as conn:
        return conn.exec_driver_sql(f"SELECT @@session.{variable}").scalar()


def test_set_on_every_connection(mysql_url, tmp_path):
    conf = make_conf(tmp_path, mysql_url, placement_database={"mysql_wsrep_sync_wait": 3})
    assert conf.placement_database.mysql_wsrep_sync_wait == 3
    engine = db_engine.create_engine(mysql_url, conf.placement_database)
    try:
        assert _session(engine, "wsrep_sync_wait") == 3
        engine.dispose()  # a new connection gets it too
        assert _session(engine, "wsrep_sync_wait") == 3
        assert "STRICT_ALL_TABLES" in _session(engine, "sql_mode")  # TRADITIONAL, still
    finally:
        engine.dispose()


def test_unset_leaves_the_server_default(mysql_url, tmp_path):
    conf = make_conf(tmp_path, mysql_url)
    assert conf.placement_database.mysql_wsrep_sync_wait is None
    engine = db_engine.create_engine(mysql_url, conf.placement_database)
    try:
        with engine.connect() as conn:
            default = conn.exec_driver_sql("SELECT @@global.wsrep_sync_wait").scalar()
        assert _session(engine, "wsrep_sync_wait") == default
    finally:
        engine.dispose()


def test_sqlite_ignores_it(tmp_path):
    url = f"sqlite:///{tmp_path}/x.sqlite"
    conf = make_conf(tmp_path, url, placement_database={"mysql_wsrep_sync_wait": 1})
    engine = db_engine.create_engine(url, conf.placement_database)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT 1").scalar() == 1
    finally:
        engine.dispose()
