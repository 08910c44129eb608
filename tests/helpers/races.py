"""A second writer made to collide with an open transaction, provably.

``SecondWriter`` runs ``db.write(fn, *args)`` in a thread and watches the
statements that thread sends. ``wait_until_blocked`` returns only once the
thread is stuck behind the caller's uncommitted transaction:

- PostgreSQL and MariaDB/MySQL: its INSERT into ``table`` was sent and the
  server reports its session waiting on a lock (pg_stat_activity,
  information_schema.innodb_trx), i.e. on the caller's uncommitted row;
- SQLite: writers take the database lock up front, so the collision is at
  its ``BEGIN IMMEDIATE``, which cannot finish while the caller's write
  transaction is open: it was entered (SQLite cannot be asked whether a
  connection waits on its busy handler).

No sleep decides the outcome: the probes are polled until they answer.
"""

import threading
import time

import sqlalchemy as sa
from sqlalchemy import event

GIVE_UP = 60.0  # seconds: a guard against a hang, not a timing assertion


class SecondWriter:
    def __init__(self, db, table: sa.Table, fn, *args):
        self.db = db
        self.table = table
        self.fn = fn
        self.args = args
        self.statements: list[tuple[str, object, int]] = []  # (sql, parameters, rowcount)
        self.result = None
        self.error: BaseException | None = None
        self._reached = threading.Event()
        self._session_id = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    # -- the thread ----------------------------------------------------------------

    def _run(self) -> None:
        try:
            self.result = self.db.write(self.fn, *self.args)
        except BaseException as exc:  # reported by join, not lost in the thread
            self.error = exc
        finally:
            event.remove(self.db.engine, "before_cursor_execute", self._before)
            event.remove(self.db.engine, "after_cursor_execute", self._after)
            self._reached.set()  # never leave wait_until_blocked hanging

    def _blocks_here(self, statement: str) -> bool:
        sql = statement.lstrip().upper()
        if self.db.backend == "sqlite":
            return sql.startswith("BEGIN IMMEDIATE")
        return sql.startswith("INSERT") and self.table.name.upper() in sql

    def _before(self, conn, cursor, statement, parameters, context, executemany):
        if threading.get_ident() != self._thread.ident or not self._blocks_here(statement):
            return
        dbapi_conn = conn.connection.dbapi_connection
        if self.db.backend == "postgresql":
            self._session_id = dbapi_conn.info.backend_pid
        elif self.db.backend == "mysql":
            self._session_id = dbapi_conn.thread_id()
        self._reached.set()

    def _after(self, conn, cursor, statement, parameters, context, executemany):
        if threading.get_ident() == self._thread.ident:
            self.statements.append((statement, parameters, cursor.rowcount))

    # -- the test's side -----------------------------------------------------------

    def start(self) -> "SecondWriter":
        event.listen(self.db.engine, "before_cursor_execute", self._before)
        event.listen(self.db.engine, "after_cursor_execute", self._after)
        self._thread.start()
        return self

    def wait_until_blocked(self) -> None:
        """Return once the thread waits on the caller's open transaction."""
        assert self._reached.wait(GIVE_UP), "the second writer never reached its write"
        assert self.error is None and self.result is None and self._thread.is_alive(), (
            f"the second writer finished before colliding: {self.error!r}")
        if self.db.backend == "sqlite":
            return
        # InnoDB answers information_schema.innodb_trx from a cache it refreshes
        # only when it was not read for 0.1 s: probe less often than that, so
        # that every probe (the first one too) sees the present state
        pause = 0.15 if self.db.backend == "mysql" else 0.005
        deadline = time.monotonic() + GIVE_UP
        while True:
            time.sleep(pause)
            if self._lock_waiting():
                return
            assert self._thread.is_alive(), "the second writer finished without waiting"
            assert time.monotonic() < deadline, "the second writer never waited on a lock"

    def _lock_waiting(self) -> bool:
        if self.db.backend == "postgresql":
            query = "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = %(id)s"
        else:
            query = ("SELECT trx_state = 'LOCK WAIT' FROM information_schema.innodb_trx "
                     "WHERE trx_mysql_thread_id = %(id)s")
        # one transaction per probe: PostgreSQL keeps a snapshot of the view per transaction
        with self.db.engine.connect() as conn:
            return bool(conn.exec_driver_sql(query, {"id": self._session_id}).scalar())

    def join(self):
        """The thread's result (its error re-raised); the thread stopped watching
        when it ended."""
        self._thread.join(GIVE_UP)
        assert not self._thread.is_alive(), "the second writer hangs"
        if self.error is not None:
            raise self.error
        return self.result

    def inserts(self) -> list[tuple[object, int]]:
        """(parameters, rows inserted) of each INSERT into ``table`` it sent."""
        name = self.table.name.upper()
        return [(params, rowcount) for sql, params, rowcount in self.statements
                if sql.lstrip().upper().startswith("INSERT") and name in sql.upper()]
