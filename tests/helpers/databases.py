"""Backends under test and throw-away databases on their servers.

Backends come from PLACER_TEST_BACKENDS (default: sqlite,postgresql,mysql).
A server that cannot be reached skips its tests, except with CI=true, where
it fails them: CI must prove every backend. Creating and dropping the
databases is the benchmarks harness's (benchmarks/harness/databases.py), which
the tests share (the benchmarks must not import tests/).
"""

import os

import pytest
import sqlalchemy as sa

from benchmarks.harness import databases

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


class ThrowAwayDatabase(databases.ThrowAwayDatabase):
    """A uniquely named database on the test server of ``backend`` (SQLite:
    a file in ``tmp_dir``), created at once; ``drop()`` removes it."""

    def __init__(self, backend: str, tmp_dir):
        super().__init__(backend, SERVERS[backend], directory=tmp_dir, prefix="placer_test")
        try:
            self.create()
        except sa.exc.OperationalError as exc:
            _unreachable(backend, exc)
