"""Backends under test and throw-away databases on their servers.

Backends come from PLACER_TEST_BACKENDS (default: sqlite,postgresql,mysql).
A server that cannot be reached skips its tests, except with CI=true, where
it fails them: CI must prove every backend.
"""

import os
import uuid

import pytest
import sqlalchemy as sa

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
