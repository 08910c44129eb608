"""Built statements run on the driver's cursor: the everyday one-row reads
(a class, a provider, a provider's inventories, traits, aggregates,
allocations and usages, ``?in_tree=``, ``/usages``).

SQLAlchemy's execution of a statement it has already compiled costs more
than the statement itself on SQLite and about as much as the round trip on
PostgreSQL (an execution context, a result and its rows built each time;
about 65 us a statement here). ``rows`` compiles a statement once per
dialect with SQLAlchemy and runs the SQL on the connection's own DBAPI
cursor, with SQLAlchemy's bind and result type processing, its cursor
events (statement counters, osprofiler, ``Database.transaction``'s own)
and, on any driver error, SQLAlchemy's own handling: the statement is run
again through ``Connection.execute``, which raises the error as it always
would (a dead connection invalidated, a DataError for bad input).
Statements with expanding or literal-rendered parameters, and engines that
echo their SQL, take ``Connection.execute`` always.
"""

import collections
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection

_Processor = Callable[[Any], Any] | None


class _Plan(NamedTuple):
    sql: str
    names: tuple[str, ...] | None  # positional: the bind names in order
    defaults: dict[str, Any]  # the statement's own bound values (literals)
    binds: tuple[tuple[str, Callable[[Any], Any]], ...]  # (name, processor)
    results: tuple[_Processor, ...]  # per column, None where none
    row: Any  # a named tuple class of the result's keys


_UNSEEN = object()
# by the statement itself (kept alive here: an id could be reused)
_PLANS: dict[tuple[sa.Select[Any], type, str, Any], _Plan | None] = {}
_LOCK = threading.Lock()


def _plan_for(stmt: sa.Select[Any], dialect: sa.Dialect, keys: Sequence[str],
              description: Sequence[Sequence[Any]]) -> _Plan | None:
    compiled = stmt.compile(dialect=dialect)
    binds = compiled.binds  # by the name in the SQL: a named bind's own key
    if compiled.literal_execute_params or compiled.post_compile_params or any(
            b.expanding or b.callable is not None for b in binds.values()):
        return None
    processors = tuple((name, p) for name, b in binds.items()
                       if (p := b.type.dialect_impl(dialect).bind_processor(dialect)))
    # as SQLAlchemy chooses them: by the column's type and the driver's type code
    results = tuple(c.type.dialect_impl(dialect).result_processor(dialect, d[1])
                    for c, d in zip(stmt.selected_columns, description, strict=True))
    positional = compiled.positiontup
    return _Plan(compiled.string, tuple(positional) if positional is not None else None,
                 {name: b.value for name, b in binds.items() if not b.required},
                 processors, results,
                 collections.namedtuple("Row", keys, rename=True))


def _key(stmt: sa.Select[Any], dialect: sa.Dialect) -> tuple[sa.Select[Any], type, str, Any]:
    return stmt, type(dialect), dialect.paramstyle, dialect.server_version_info


def rows(conn: Connection, stmt: sa.Select[Any], params: Mapping[str, Any]) -> list[Any]:
    """The rows of ``stmt`` (a statement built once and kept: its plan is
    kept with it) with bind parameters ``params``, as named tuples that
    read like SQLAlchemy's rows (``row.name``, ``row[0]``)."""
    dialect = conn.dialect
    key = _key(stmt, dialect)
    plan = _PLANS.get(key, _UNSEEN)
    if not isinstance(plan, _Plan) or conn.engine.echo:
        result = conn.execute(stmt, params)
        description = result.cursor.description
        found: list[Any] = list(result.all())
        if plan is _UNSEEN:
            with _LOCK:
                _PLANS[key] = _plan_for(stmt, dialect, list(result.keys()), description)
        return found
    values = {**plan.defaults, **params}
    for name, processor in plan.binds:
        values[name] = processor(values.get(name))
    args: Any = (tuple(values.get(name) for name in plan.names) if plan.names is not None
                 else values)
    sql = plan.sql
    try:
        cursor = conn.connection.cursor()
        try:
            for before in conn.dispatch.before_cursor_execute:
                sql, args = before(conn, cursor, sql, args, None, False)
            cursor.execute(sql, args)
            for after in conn.dispatch.after_cursor_execute:
                after(conn, cursor, sql, args, None, False)
            fetched = cursor.fetchall()
        finally:
            cursor.close()
    except dialect.loaded_dbapi.Error:
        # SQLAlchemy's own path raises it as it would have, invalidating a
        # dead connection (Database.transaction then runs again on a new one)
        return list(conn.execute(stmt, params).all())
    make, results = plan.row._make, plan.results
    if any(results):
        return [make(v if p is None else p(v) for p, v in zip(results, row, strict=True))
                for row in fetched]
    return [make(row) for row in fetched]
