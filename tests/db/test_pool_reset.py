"""A connection goes back to the pool with no transaction open, on every
backend; on MySQL the pool asks the server's status instead of sending a
ROLLBACK after each transaction (db/engine.py, _reset_if_in_transaction)."""

import sqlalchemy as sa
from sqlalchemy.pool.base import ResetStyle

from placer.db.tables import traits

LEFT_OPEN = "CUSTOM_LEFT_OPEN"


def _left_open(db) -> None:
    """A raw pooled connection, returned inside a transaction that wrote."""
    raw = db.engine.raw_connection()
    cur = raw.cursor()
    if db.backend == "sqlite":
        cur.execute("BEGIN")  # the engine runs SQLite without implicit transactions
    cur.execute(f"INSERT INTO traits (name) VALUES ('{LEFT_OPEN}')")
    cur.close()
    raw.close()


def _count(conn) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(traits)
                        .where(traits.c.name == LEFT_OPEN)).scalar()


def test_a_transaction_left_open_is_rolled_back_on_return(db):
    _left_open(db)
    assert db.read(_count) == 0
    assert db.read(lambda conn: conn.execute(sa.select(sa.literal(1))).scalar()) == 1


def test_mysql_rolls_back_only_what_is_open(db, monkeypatch):
    """Elsewhere the pool's own reset stays: a rollback is free where the
    driver knows no transaction is open (psycopg, sqlite3)."""
    reset = db.engine.pool._reset_on_return
    if db.backend != "mysql":
        assert reset == ResetStyle.reset_rollback
        return
    assert reset == ResetStyle.reset_none  # the engine's reset event decides
    import pymysql.connections

    rollbacks = []
    real = pymysql.connections.Connection.rollback

    def counted(self):
        rollbacks.append(1)
        return real(self)

    monkeypatch.setattr(pymysql.connections.Connection, "rollback", counted)
    db.read(lambda conn: conn.execute(sa.select(sa.literal(1))).scalar())
    db.write(lambda conn: conn.execute(traits.insert().values(name="CUSTOM_WRITTEN")))
    assert rollbacks == []  # each ended with its COMMIT: nothing left to undo
    _left_open(db)
    assert rollbacks == [1]
    assert db.read(_count) == 0
