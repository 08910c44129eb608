"""Engines for SQLite, PostgreSQL and MySQL/MariaDB, and the transaction helpers.

Every request runs in one transaction: ``Database.read`` or
``Database.write`` call one core function with a connection and commit (or
roll back) around it (on PostgreSQL, a read's statements run in autocommit,
each with its own snapshot as at READ COMMITTED: ``Database.read``).
Writes that lose a deadlock are retried whole. (A refused body on a
provider's sub-resource reads the provider once, for the 404 the reference
gives first: handlers/_provider_body.py.)
"""

import contextlib
import functools
import importlib.util
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import orjson
import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy import event
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import ConnectionPoolEntry, PoolResetState

from placer import exceptions
from placer.db import scores

LOG = logging.getLogger("placement.db")
T = TypeVar("T")

DEADLOCK_RETRIES = 5

# Observers of what the store goes through, called as ``listener(event, detail)``:
# ("retry", "deadlock" | "generation_conflict") before a write runs again,
# ("error", exception class name) when a database error ends a transaction,
# ("unavailable", "") when the database cannot be reached. placer.http.metrics
# counts them; nothing here depends on them.
LISTENERS: list[Callable[[str, str], None]] = []


def _notify(event: str, detail: str = "") -> None:
    # called while handling the store's own errors: an observer failing must
    # not replace them (a 503 would become a 500, a retry would be cut short)
    for listener in LISTENERS:
        try:
            listener(event, detail)
        except Exception:
            LOG.exception("%s listener failed on %s", event, listener)


def json_arrays(dialect: sa.Dialect) -> bool:
    """Whether large reads come as one JSON array (``json_rows``): on MySQL
    with JSON_ARRAYAGG (MariaDB 10.5, MySQL 5.7.22), where PyMySQL decodes
    each row in Python (about 5 us a row, 1,000 hosts' providers being most
    of an answer's time) and orjson the whole array in a fraction of that."""
    if dialect.name != "mysql":
        return False
    version = tuple(v for v in dialect.server_version_info or () if isinstance(v, int))
    return version >= ((10, 5) if getattr(dialect, "is_mariadb", False) else (5, 7, 22))


def json_rows(conn: Connection, query: "str | sa.Select[Any]",
              columns: str = "") -> list[list[Any]] | None:
    """The rows of ``query`` (SQL text and its ``columns`` as named in it,
    or a select) as one JSON array, in no set order, where ``json_arrays``;
    None elsewhere, for no rows, or for an array cut at the session's
    group_concat_max_len (set at connect): read them as rows then. No FLOAT
    columns: JSON widens them to doubles."""
    if not json_arrays(conn.dialect):
        return None
    if isinstance(query, str):
        found = conn.exec_driver_sql(
            f"SELECT JSON_ARRAYAGG(JSON_ARRAY({columns})) FROM ({query}) AS q").scalar()
    else:
        inner = query.subquery("q")
        found = conn.execute(sa.select(sa.func.json_arrayagg(sa.func.json_array(*inner.c)))
                             ).scalar()
    if found is None:
        return None
    try:
        rows: list[list[Any]] = orjson.loads(found)
    except orjson.JSONDecodeError:
        return None
    return rows


def plain_rows(result: sa.CursorResult[*tuple[Any, ...]]) -> Sequence[tuple[Any, ...]]:
    """The rows of a statement that has run, as the driver's plain tuples
    (for large answers whose columns need no type processing: the Row
    objects cost a fifth of reading them). SQLite reads its file as rows are
    fetched: an error there is wrapped as SQLAlchemy wraps the statement's
    own, so the transaction sees a DBAPIError either way."""
    dbapi_error = result.context.dialect.loaded_dbapi.Error
    try:
        return result.cursor.fetchall()
    except dbapi_error as exc:
        raise DBAPIError.instance(None, None, exc, dbapi_error) from exc
    finally:
        result.close()


def normalize_url(url: str, parameters: str = "") -> sa.URL:
    """Accept the URL forms operators already write, with the drivers we ship.

    ``postgresql://`` and ``postgresql+psycopg2://`` use psycopg 3 when
    psycopg2 is absent; ``mysql://`` uses PyMySQL when MySQLdb is absent.
    """
    if parameters:
        url = f"{url}{'&' if '?' in url else '?'}{parameters}"
    u = make_url(url)
    backend, _, driver = u.drivername.partition("+")
    if backend == "postgresql" and driver in ("", "psycopg2"):
        if importlib.util.find_spec("psycopg2") is None:
            u = u.set(drivername="postgresql+psycopg")
    elif backend == "mysql" and driver in ("", "mysqldb"):
        if importlib.util.find_spec("MySQLdb") is None:
            u = u.set(drivername="mysql+pymysql")
    return u


def create_engine(url: str, db_conf: cfg.ConfigOpts.GroupAttr | None = None) -> Engine:
    """An engine for ``url``; ``db_conf`` is the [placement_database] group."""
    u = normalize_url(url, getattr(db_conf, "connection_parameters", "") or "")
    backend = u.get_backend_name()
    # no pool_pre_ping (a round trip per transaction): a pooled connection
    # found dead by a transaction's first statement is replaced, and the
    # transaction run again, by Database (its ``read``/``write``)
    kwargs: dict[str, Any] = {}
    if db_conf is not None:
        kwargs["pool_recycle"] = db_conf.connection_recycle_time
        if db_conf.connection_debug >= 50:
            kwargs["echo"] = "debug" if db_conf.connection_debug >= 100 else True
        if backend != "sqlite":
            for opt, arg in (("max_pool_size", "pool_size"), ("max_overflow", "max_overflow"),
                             ("pool_timeout", "pool_timeout")):
                if getattr(db_conf, opt) is not None:
                    kwargs[arg] = getattr(db_conf, opt)
    if backend == "sqlite":
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    elif backend == "mysql":
        kwargs["isolation_level"] = "READ COMMITTED"
        kwargs["pool_reset_on_return"] = None  # _reset_if_in_transaction instead
        u = u.update_query_dict({"charset": u.query.get("charset", "utf8mb4")})
    engine = sa.create_engine(u, **kwargs)
    if backend == "sqlite":
        _tune_sqlite(engine, synchronous=getattr(db_conf, "sqlite_synchronous", True),
                     memory=u.database in (None, "", ":memory:"))
    elif backend == "mysql":
        sql_mode = getattr(db_conf, "mysql_sql_mode", "TRADITIONAL")
        _set_mysql_mode(engine, sql_mode, getattr(db_conf, "mysql_wsrep_sync_wait", None))
        _reset_if_in_transaction(engine)
    elif backend == "postgresql":
        _no_jit(engine)
    return engine


def _ran(conn: Connection, _cursor: Any, statement: str, *_args: Any) -> None:
    """Notes that a statement of the transaction (``placer_ran``, a list
    handed in by Database.transaction) has run, and (``placer_selects``)
    whether one was anything but a SELECT."""
    options = conn.get_execution_options()
    ran = options.get("placer_ran")
    if ran is not None and not ran:
        ran.append(True)
    selects = options.get("placer_selects")
    if selects and statement.lstrip()[:6].upper() != "SELECT":
        selects[0] = False


class _StaleConnection(Exception):
    """The transaction's first statement found its pooled connection dead
    (closed by the server, or by an outage since it was last used): nothing
    was done, so the transaction can run again on a new connection."""


def engine_for(conf: cfg.ConfigOpts) -> Engine:
    """The engine of a configuration's ``[placement_database]``: the one way
    every command and the API build theirs."""
    return create_engine(conf.placement_database.connection, conf.placement_database)


def _no_jit(engine: Engine) -> None:
    """PostgreSQL compiles a query with many correlated subqueries (the
    candidate root filter) for a second before running it for a millisecond:
    JIT costs this workload far more than it can save."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("SET jit = off")
        cur.close()
        dbapi_conn.commit()


def _tune_sqlite(engine: Engine, synchronous: bool, memory: bool) -> None:
    """WAL and a busy timeout; writers take the lock up front (BEGIN IMMEDIATE)
    so two writers never deadlock upgrading read locks."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        if not memory:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.execute(f"PRAGMA synchronous={'NORMAL' if synchronous else 'OFF'}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        options = conn.get_execution_options()
        if options.get("placer_autocommit"):
            return  # each statement its own snapshot (Database.read)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("placer_write") else "BEGIN")


def _set_mysql_mode(engine: Engine, sql_mode: str | None, wsrep_sync_wait: int | None) -> None:
    """Session variables on every new connection: the SQL mode, Galera's
    causality checks (``wsrep_sync_wait``, as oslo.db's ``mysql_wsrep_sync_wait``),
    and room for the JSON arrays the tree loader reads (db/trees.py; MariaDB
    cuts them at group_concat_max_len, 1 MiB by default)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("SET SESSION group_concat_max_len = 16777216")
        if sql_mode:
            cur.execute("SET SESSION sql_mode = %s", (sql_mode,))
        if wsrep_sync_wait is not None:
            cur.execute("SET SESSION wsrep_sync_wait = %s", (wsrep_sync_wait,))
        cur.close()


_SERVER_STATUS_IN_TRANS = 1  # the MySQL protocol's status flag: a transaction is open


def _reset_if_in_transaction(engine: Engine) -> None:
    """A connection going back to the pool is rolled back only if the server
    says it is in a transaction. The pool's own reset sends ROLLBACK every
    time, a third round trip after a read's SELECT and COMMIT; PyMySQL
    keeps the server's status from every answer (a driver that does not
    is rolled back as before)."""

    @event.listens_for(engine, "reset")
    def _on_reset(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry,
                  _state: PoolResetState) -> None:
        status = getattr(dbapi_conn, "server_status", None)
        if not isinstance(status, int) or status & _SERVER_STATUS_IN_TRANS:
            dbapi_conn.rollback()


def wait_for_connection(engine: Engine, max_retries: int, retry_interval: float) -> None:
    """Connect once to check the database is there, as oslo.db does at start-up
    for ``[placement_database] max_retries`` and ``retry_interval``: up to
    ``max_retries`` attempts (-1: until it answers; 0: no check), a warning
    per failed attempt, then ``DatabaseUnavailable``."""
    attempt = 0
    while max_retries:
        attempt += 1
        try:
            engine.connect().close()
            return
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
            left = "unlimited" if max_retries < 0 else max_retries - attempt
            # the driver's text names the host and port: operators need it here
            LOG.warning("SQL connection failed (attempt %d, %s attempts left): %s",
                        attempt, left, str(exc.orig or exc).strip())
            if max_retries > 0 and attempt >= max_retries:
                raise exceptions.DatabaseUnavailable() from exc
            time.sleep(retry_interval)


def check_features(conn: Connection) -> None:
    """``UnsupportedDatabase`` with the reason if the database lacks what the
    API needs: on SQLite, the JSON functions (built in since SQLite 3.38), as
    the candidate search passes its lists of ids as one JSON parameter there.
    Checked at start-up, so that an old build fails there and not on the
    first candidates request."""
    if conn.dialect.name != "sqlite":
        return
    try:
        conn.exec_driver_sql("SELECT value FROM json_each('[1]')").all()
    except DBAPIError as exc:
        version = conn.exec_driver_sql("SELECT sqlite_version()").scalar()
        raise exceptions.UnsupportedDatabase(
            f"SQLite {version} cannot run its JSON functions "
            f"({exc.orig}); Placer needs them: SQLite 3.38 or later, or a build with "
            "JSON1") from exc


def _is_deadlock(exc: BaseException | None) -> bool:
    """A deadlock or serialization failure, possibly hidden behind a later
    error (MySQL drops savepoints when it breaks a deadlock, and the failed
    ROLLBACK TO SAVEPOINT is what surfaces)."""
    while exc is not None:
        if isinstance(exc, DBAPIError) and _is_deadlock_error(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _is_deadlock_error(exc: DBAPIError) -> bool:
    orig = exc.orig
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if code in ("40001", "40P01"):  # PostgreSQL serialization failure / deadlock
        return True
    # MySQL/MariaDB deadlock / lock wait timeout. Galera reports a transaction
    # that fails certification at commit, or is brute-force aborted by another
    # node's replicated write, as 1213 too ("Deadlock found ..."): retried alike.
    # Its 1047 (node not ready) and 1180 (write set too large) are not conflicts.
    args: tuple[Any, ...] = getattr(orig, "args", ())
    return bool(args) and args[0] in (1213, 1205)


def insert_ignoring_duplicates(conn: Connection, table: sa.Table,
                               rows: list[dict[str, Any]]) -> int:
    """One multi-row INSERT that skips rows whose unique key already exists
    (committed, or being committed by a concurrent transaction, which it waits
    for) instead of failing. Returns how many rows it inserted."""
    if not rows:
        return 0
    stmt = _insert_ignoring(conn.dialect.name, table)
    if len(rows) == 1:  # the statement as built, its values bound
        return conn.execute(stmt, rows[0]).rowcount
    return conn.execute(stmt.values(rows)).rowcount


@functools.cache
def bump_generations(table: sa.Table, n: int, changed: tuple[str, ...] = ()) -> sa.Update:
    """The compare-and-set of ``n`` rows of ``table`` (by ``id``) from the
    generation each was read at to +1, also setting the ``changed`` columns;
    built once per shape. Bind parameters: id_i and seen_i for each row,
    and each changed column's name (``generation_parameters``)."""
    c = table.c
    return (table.update()
            .where(sa.or_(*(sa.and_(c.id == sa.bindparam(f"id_{i}"),
                                    c.generation == sa.bindparam(f"seen_{i}"))
                            for i in range(n))))
            .values(generation=c.generation + 1,
                    **{name: sa.bindparam(name) for name in changed}))


def generation_parameters(seen: Iterable[tuple[int, int]]) -> dict[str, Any]:
    """``bump_generations``' id_i and seen_i for each (id, generation read)."""
    params: dict[str, Any] = {}
    for i, (id_, generation) in enumerate(seen):
        params[f"id_{i}"], params[f"seen_{i}"] = id_, generation
    return params


@functools.cache
def _insert_ignoring(backend: str, table: sa.Table) -> sa.Insert:
    stmt: sa.Insert
    if backend == "postgresql":
        stmt = postgresql.insert(table).on_conflict_do_nothing()
    elif backend == "sqlite":
        stmt = sqlite.insert(table).on_conflict_do_nothing()
    elif backend == "mysql":
        stmt = mysql.insert(table).prefix_with("IGNORE")
    else:  # pragma: no cover - the three supported backends are above
        raise NotImplementedError(backend)
    return stmt.execution_options(preserve_rowcount=True)


def _unavailable(exc: Exception) -> exceptions.DatabaseUnavailable:
    LOG.error("Database unavailable: %s", str(getattr(exc, "orig", None) or exc).strip())
    _notify("unavailable")
    return exceptions.DatabaseUnavailable()


class Database:
    """The store handed to the HTTP layer: an engine plus transaction helpers.

    ``prepare``, if given, runs once before the first transaction (with a
    plain ``Database`` of the same engine): a WSGI app built at import, before
    the database answers, checks and syncs it when the first request needs
    it. Until it succeeds, each transaction tries it again, and a database
    that cannot be reached is ``DatabaseUnavailable`` (503) meanwhile.

    ``keep_scores``: whether writes keep the trees' scores (db/scores.py),
    which only the spread and pack orders read; told by the app factory
    (wsgi.create_app) from the configuration. When on, the scores are made
    exact before the first transaction that follows (a server started
    with spread or pack after writes that did not keep them).
    """

    def __init__(self, engine: Engine, prepare: Callable[["Database"], None] | None = None):
        self.engine = engine
        self._answering = threading.local()  # reads that end after the answer
        if not event.contains(engine, "after_cursor_execute", _ran):
            event.listen(engine, "after_cursor_execute", _ran)  # see transaction()
        self._prepare = prepare
        self._prepare_lock = threading.Lock()
        self._keep_scores = False
        self._scores_present: bool | None = None  # the tables, looked up when first kept

    @property
    def keep_scores(self) -> bool:
        return self._keep_scores

    @keep_scores.setter
    def keep_scores(self, keep: bool) -> None:
        with self._prepare_lock:
            if keep and not self._keep_scores:
                self._scores_present = None  # checked, and made exact, first
            self._keep_scores = keep

    @property
    def scores_kept(self) -> bool:
        """Whether writes keep the trees' scores: asked to, and the score
        tables are there (looked up once, before the first transaction:
        placement-manage scores drop is for a stopped service)."""
        return self._keep_scores and bool(self._scores_present)

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    def _ready(self) -> bool:
        return self._prepare is None and (not self._keep_scores
                                          or self._scores_present is not None)

    def make_ready(self) -> None:
        """Prepare now what the first transaction would (``prepare``, the
        scores made exact where they are kept); ``DatabaseUnavailable``
        when the database cannot be reached."""
        with self._prepare_lock:
            plain = Database(self.engine)
            try:
                if self._prepare is not None:
                    self._prepare(plain)
                    self._prepare = None
                if self._keep_scores and self._scores_present is None:
                    self._scores_present = _exact_scores(plain)
            except (sa.exc.OperationalError, sa.exc.InterfaceError,
                    sa.exc.TimeoutError) as exc:
                raise _unavailable(exc) from exc

    def defer_read_ends(self) -> None:
        """From now on in this thread (a request being answered), a read's
        transaction on MySQL ends when ``end_deferred_reads`` runs, after
        the answer is sent: its COMMIT is a round trip the client need not
        wait for (PostgreSQL's and SQLite's reads have none). A read that
        sent anything but a SELECT ends at once, as before."""
        self.end_deferred_reads()  # an answer whose end never ran (no close())
        if self.backend == "mysql":
            self._answering.pending = []

    def end_deferred_reads(self) -> None:
        """Commit and give back the connections of the reads deferred in this
        thread; a failure is logged (the answer is gone already)."""
        pending: list[Connection] | None = getattr(self._answering, "pending", None)
        self._answering.pending = None
        for conn in pending or ():
            try:
                conn.commit()
            except Exception as exc:  # nothing was written: only the end of a read
                LOG.warning("Ending a read transaction after its answer failed: %s", exc)
            finally:
                conn.close()

    @contextlib.contextmanager
    def transaction(self, write: bool = False, isolation: str | None = None,
                    retry_stale: bool = False, defer: bool = False) -> Iterator[Connection]:
        """A transaction (at ``isolation``, a SQLAlchemy isolation level, if
        given); ``DatabaseUnavailable`` when the database cannot be reached or
        the connection is lost on the way. Pooled connections are not pinged
        before use: with ``retry_stale``, a connection found dead by the
        transaction's first statement raises ``_StaleConnection`` (which
        ``read`` and ``write`` answer by running the transaction again, once,
        on a new connection: the first request after an outage succeeds)."""
        if not self._ready():
            self.make_ready()
        try:
            conn = self.engine.connect()
        except (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError) as exc:
            raise _unavailable(exc) from exc
        ran: list[bool] = []  # a statement has run (_ran)
        later = getattr(self._answering, "pending", None) if defer else None
        selects = [True]  # only SELECTs have run (_ran): the end may wait
        conn = conn.execution_options(placer_ran=ran, **(
            {"placer_selects": selects} if later is not None else {}))
        if isolation == "AUTOCOMMIT" and self.backend == "sqlite":
            # pysqlite runs without a transaction unless one is begun: no
            # BEGIN (_tune_sqlite), and its commit is then a no-op
            conn = conn.execution_options(placer_autocommit=True)
        elif isolation is not None:
            conn = conn.execution_options(isolation_level=isolation)
        touched: set[int] = set()  # trees whose scores the write changes (db/scores.py)
        if write:
            options = {"placer_touched": touched} if self._keep_scores else {}
            conn = conn.execution_options(placer_write=True, **options)
        ended_later = False
        try:
            if later is None:
                with conn.begin():
                    yield conn
                    if touched and self.scores_kept:
                        scores.refresh(conn, touched)
            else:
                conn.begin()
                yield conn
                if selects[0]:
                    later.append(conn)
                    ended_later = True
                else:
                    conn.commit()
        except DBAPIError as exc:
            _notify("error", type(exc).__name__)
            if exc.connection_invalidated:
                if retry_stale and not ran:
                    LOG.warning("A pooled database connection was found closed: "
                                "running the transaction again on a new one (%s)",
                                str(exc.orig or exc).strip())
                    raise _StaleConnection() from exc
                raise _unavailable(exc) from exc
            raise
        finally:
            if not ended_later:
                conn.close()

    def _run(self, fn: Callable[..., T], args: Any, kwargs: Any, write: bool = False,
             isolation: str | None = None, defer: bool = False) -> T:
        """``fn`` in one transaction; run again once on a new connection when
        the first one was found dead before anything was done."""
        try:
            with self.transaction(write, isolation, retry_stale=True, defer=defer) as conn:
                return fn(conn, *args, **kwargs)
        except _StaleConnection:
            pass
        with self.transaction(write, isolation, defer=defer) as conn:
            return fn(conn, *args, **kwargs)

    def read(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn`` in a read transaction. On PostgreSQL and SQLite its
        statements run in autocommit, without BEGIN and COMMIT (two round
        trips on PostgreSQL): each sees its own snapshot, as it would in a
        READ COMMITTED transaction (use ``snapshot_read`` for one snapshot).
        On MySQL, while a request is answered, its transaction ends after the
        answer (``defer_read_ends``)."""
        if self.backend in ("postgresql", "sqlite"):
            return self._run(fn, args, kwargs, isolation="AUTOCOMMIT")
        return self._run(fn, args, kwargs, defer=True)

    def snapshot_read(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``read``, every statement seeing the same snapshot: at REPEATABLE
        READ where each statement would see its own (PostgreSQL's default,
        and MySQL's READ COMMITTED that this engine sets); SQLite's
        transactions are snapshots."""
        isolation = "REPEATABLE READ" if self.backend in ("postgresql", "mysql") else None
        return self._run(fn, args, kwargs, isolation=isolation)

    def write(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn`` in a write transaction, retrying it whole on a deadlock."""
        for attempt in range(DEADLOCK_RETRIES + 1):
            try:
                return self._run(fn, args, kwargs, write=True)
            except DBAPIError as exc:
                if attempt == DEADLOCK_RETRIES or not _is_deadlock(exc):
                    raise
                LOG.debug("deadlock in %s, retrying", getattr(fn, "__name__", fn))
                _notify("retry", "deadlock")
                time.sleep(0.01 * (attempt + 1))
        raise AssertionError("unreachable")

    def write_retrying(self, retry_on: type[Exception], tries: int,
                       fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``write``, run again from scratch (up to ``tries`` times in all) when
        it raises ``retry_on``: a lost compare-and-set, not the client's fault."""
        for attempt in range(1, max(tries, 1) + 1):
            try:
                return self.write(fn, *args, **kwargs)
            except retry_on:
                if attempt >= tries:
                    raise
                LOG.debug("%s lost a race, retrying", getattr(fn, "__name__", fn))
                _notify("retry", "generation_conflict")
        raise AssertionError("unreachable")

    def dispose(self) -> None:
        self.engine.dispose()


def _exact_scores(db: Database) -> bool:
    """Make the trees' scores exact, for a database that keeps them; False
    when their tables are missing (candidates then come in id order)."""
    if not db.read(scores.present):
        LOG.warning("The candidate order needs the trees' score tables, which are missing: "
                    "candidates come in id order until 'placement-manage db sync' "
                    "creates them.")
        return False
    # checked first without the lock, so that workers finding them exact
    # (the usual start) do not wait for each other
    rebuilt = db.read(scores.stale) and db.write(scores.make_exact)
    if rebuilt:
        LOG.info("Rebuilt the scores of %d provider trees for the candidate order "
                 "(they did not match the providers: written while the order was id or "
                 "random, or by another service).", rebuilt)
    return True
