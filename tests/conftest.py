"""Shared fixtures: a throw-away database on each backend, and an HTTP client.

Backends come from PLACER_TEST_BACKENDS (default: sqlite,postgresql,mysql).
A server that cannot be reached skips its tests, except with CI=true, where
it fails them: CI must prove every backend.
"""

import json as jsonlib
import os
import uuid

import pytest
import sqlalchemy as sa
import webob

from placer import conf as placer_conf
from placer import wsgi
from placer.db import engine as db_engine
from placer.db import migration, sync, tables

SERVERS = {
    "sqlite": None,
    "postgresql": os.environ.get("PLACER_TEST_POSTGRESQL",
                                 "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
    "mysql": os.environ.get("PLACER_TEST_MYSQL", "mysql+pymysql://root@127.0.0.1:3306/test"),
}
BACKENDS = [b.strip() for b in
            os.environ.get("PLACER_TEST_BACKENDS", ",".join(SERVERS)).split(",") if b.strip()]
IN_CI = os.environ.get("CI", "").lower() == "true"


def _unreachable(backend: str, exc: Exception):
    message = f"{backend} server unreachable: {exc}"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


class ThrowAwayDatabase:
    """Creates a uniquely named database on a server, and drops it afterwards."""

    def __init__(self, backend: str, tmp_dir):
        self.backend = backend
        self.name = f"placer_test_{uuid.uuid4().hex[:12]}"
        if backend == "sqlite":
            self.url = f"sqlite:///{tmp_dir}/{self.name}.sqlite"
            self._admin = None
            return
        server = sa.make_url(SERVERS[backend])
        self._admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
        try:
            with self._admin.connect() as conn:
                conn.exec_driver_sql(f"CREATE DATABASE {self.name}")
        except sa.exc.OperationalError as exc:
            self._admin.dispose()
            _unreachable(backend, exc)
        self.url = server.set(database=self.name).render_as_string(hide_password=False)

    def drop(self) -> None:
        if self._admin is None:
            return
        with self._admin.connect() as conn:
            if self.backend == "postgresql":
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")
            else:
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {self.name}")
        self._admin.dispose()


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture(scope="session")
def migrated_db(backend, tmp_path_factory):
    """A migrated database on ``backend`` for the whole session."""
    throw_away = ThrowAwayDatabase(backend, tmp_path_factory.mktemp("db"))
    engine = db_engine.create_engine(throw_away.url)
    migration.upgrade(engine)
    db = db_engine.Database(engine)
    db.write(sync.sync_standard_names)
    yield db
    engine.dispose()
    throw_away.drop()


@pytest.fixture
def empty_engine(backend, tmp_path):
    """An engine on a fresh, unmigrated database on ``backend``."""
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    engine = db_engine.create_engine(throw_away.url)
    yield engine
    engine.dispose()
    throw_away.drop()


def _empty(conn) -> None:
    """Remove everything a test wrote, keeping the synced standard names."""
    for table in reversed(tables.metadata.sorted_tables):
        if table.name == "resource_classes":
            conn.execute(table.delete().where(table.c.id >= 10000))
        elif table.name == "resource_providers":
            # MySQL checks the self-references row by row: detach them first
            conn.execute(table.update().values(parent_provider_id=None, root_provider_id=None))
            conn.execute(table.delete())
        elif table.name == "traits":
            conn.execute(table.delete().where(table.c.name.like("CUSTOM\\_%", escape="\\")))
        else:
            conn.execute(table.delete())


@pytest.fixture
def db(migrated_db):
    migrated_db.write(_empty)
    return migrated_db


def make_conf(tmp_path, url: str = "sqlite://", **sections):
    """A ConfigOpts read from a generated placement.conf."""
    options = {"api": {"auth_strategy": "noauth2"},
               "placement_database": {"connection": url}}
    for group, values in sections.items():
        options.setdefault(group, {}).update(values)
    path = tmp_path / f"placement-{uuid.uuid4().hex[:6]}.conf"
    path.write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in values.items())
        for group, values in options.items()))
    return placer_conf.new_config(["--config-file", str(path)])


class Api:
    """Drives the WSGI app over HTTP semantics with placement's headers.

    WebOb's blank requests are used rather than a linting client because the
    reference answers 201/204 without a Content-Type, which lint rejects.
    """

    def __init__(self, app):
        self.app = app

    def request(self, method: str, path: str, version: str | None = None, json=None,
                token: str | None = "admin", headers: dict | None = None,
                body: bytes | str | None = None) -> webob.Response:
        req = webob.Request.blank(path, method=method)
        if token is not None:
            req.headers["X-Auth-Token"] = token
        if version is not None:
            req.headers["OpenStack-API-Version"] = f"placement {version}"
        if json is not None:
            req.headers["Content-Type"] = "application/json"
            req.body = jsonlib.dumps(json).encode()
        if body is not None:
            req.body = body.encode() if isinstance(body, str) else body
        for name, value in (headers or {}).items():
            req.headers[name] = value
        return req.get_response(self.app)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


@pytest.fixture
def conf(tmp_path):
    return make_conf(tmp_path)


@pytest.fixture
def api(db, conf):
    """An HTTP client on a fresh app over the (emptied) backend database."""
    return Api(wsgi.create_app(conf, db))


def assert_error(result, status: int, detail_part: str | None = None,
                 code: str | None = None) -> dict:
    """Check an API-SIG error response and return its single error."""
    assert result.status_code == status, result.text
    body = result.json
    assert list(body) == ["errors"] and len(body["errors"]) == 1, body
    error = body["errors"][0]
    assert error["status"] == status
    assert error["request_id"].startswith("req-")
    if detail_part is not None:
        assert detail_part in error["detail"], error["detail"]
    if code is not None:
        assert error.get("code") == code, error
    return error
