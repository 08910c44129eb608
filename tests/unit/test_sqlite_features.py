"""Start-up refuses a SQLite that cannot run its JSON functions (the candidate
search passes id lists as one JSON parameter there), saying why, instead of
failing on the first candidates request.

The SQLite here has them; a connection authorizer that denies every json_*
table or function makes it behave as a build without them."""

import sqlite3

import pytest
from sqlalchemy import event
from sqlalchemy.pool import Pool

from placer import exceptions, wsgi
from placer.cli import api
from tests.helpers.api import make_conf


def _deny_json(action, arg1, arg2, _db, _trigger):
    named = (arg1 or "") + " " + (arg2 or "")
    return sqlite3.SQLITE_DENY if "json" in named else sqlite3.SQLITE_OK


@pytest.fixture
def without_json():
    def on_connect(dbapi_conn, _record):
        if isinstance(dbapi_conn, sqlite3.Connection):
            dbapi_conn.set_authorizer(_deny_json)

    event.listen(Pool, "connect", on_connect)
    yield
    event.remove(Pool, "connect", on_connect)


def _conf(tmp_path):
    return make_conf(tmp_path, f"sqlite:///{tmp_path}/placement.sqlite",
                     placement_database={"sync_on_startup": True})


def test_open_database_refuses_sqlite_without_json(tmp_path, without_json):
    with pytest.raises(exceptions.UnsupportedDatabase) as caught:
        wsgi.open_database(_conf(tmp_path))
    assert f"SQLite {sqlite3.sqlite_version} cannot run its JSON functions" in caught.value.detail
    assert "json_each" in caught.value.detail  # the driver's own reason
    assert "SQLite 3.38 or later" in caught.value.detail
    # refused before migrating: no table was created
    tables = sqlite3.connect(tmp_path / "placement.sqlite").execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert tables == []


def test_open_database_accepts_sqlite_with_json(tmp_path):
    db = wsgi.open_database(_conf(tmp_path))
    db.dispose()
    # checked, then migrated
    tables = {name for name, in sqlite3.connect(tmp_path / "placement.sqlite").execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"resource_providers", "inventories", "allocations"} <= tables


def test_placement_api_exits_with_the_reason(tmp_path, without_json, monkeypatch, capsys):
    monkeypatch.setattr("oslo_log.log.setup", lambda *a, **k: None)
    monkeypatch.setattr(api._Server, "run", lambda self: pytest.fail("server started"))
    conf = tmp_path / "placement.conf"
    conf.write_text(f"[placement_database]\nconnection = sqlite:///{tmp_path}/p.sqlite\n")
    assert api.main(["--config-file", str(conf)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("placement-api: SQLite ") and "JSON functions" in err
