"""db.engine.plain_rows: the driver's tuples, with SQLAlchemy's error wrapping."""

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from placer.db.engine import plain_rows


@pytest.fixture
def engine():
    engine = sa.create_engine("sqlite://")

    @event.listens_for(engine, "connect")
    def _functions(dbapi_conn, _record):
        def boom(value):
            if value > 1:
                raise ValueError("unreadable row")
            return value
        dbapi_conn.create_function("boom", 1, boom)

    yield engine
    engine.dispose()


def test_rows_are_the_drivers_tuples(engine):
    with engine.connect() as conn:
        rows = plain_rows(conn.exec_driver_sql("SELECT 1, 'a' UNION ALL SELECT 2, 'b'"))
    assert rows == [(1, "a"), (2, "b")] and all(type(r) is tuple for r in rows)


def test_an_error_while_fetching_is_a_dbapi_error(engine):
    # SQLite computes the second row only when it is fetched
    with engine.connect() as conn:
        result = conn.exec_driver_sql("SELECT boom(value) FROM (SELECT 1 AS value"
                                      " UNION ALL SELECT 2)")
        with pytest.raises(sa.exc.OperationalError, match="user-defined function raised"):
            plain_rows(result)
        assert result.closed
