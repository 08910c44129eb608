"""What is inconsistent in the cloud the database holds (GET /audit,
placement-manage audit): one read, a SQL count and a limited, ordered query
of items per kind, whatever the cloud's size.

The kinds (model/audit.py names them; docs/operator/audit.md explains them),
each fault under one kind only:

- over_capacity: a (provider, class) with inventory whose allocations use
  more than its capacity, int((total - reserved) x allocation_ratio)
  (model.inventory.capacity; db/room.py sums the use).
- unit_violations: an allocation row its inventory's current min_unit,
  max_unit or step_size would refuse.
- without_inventory: an allocation row on a (provider, class) without an
  inventory row.
- split_consumers: a consumer whose allocations span more than one root
  tree, once the providers it uses that another of its roots may use as
  sharing providers are left out (MISC_SHARES_VIA_AGGREGATE, in an
  aggregate with a provider of that other root's tree).
- empty_consumers: a consumer row without allocations.
- idle_providers: a provider without inventory, allocations or children,
  unchanged (updated_at, else created_at) for at least idle_days days; one
  with neither timestamp is never called idle.
- unused_projects, unused_users: a row no consumer refers to.

Items come in a stable order, the same on every backend: strings compared
by code point whatever the database's collation.
"""

import datetime
import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.sql.selectable import NamedFromClause

from placer.candidates.snapshot import SHARING_TRAIT
from placer.db import room
from placer.db import tables as t
from placer.model.audit import DEFAULT_IDLE_DAYS, DEFAULT_LIMIT, FIXABLE, KINDS
from placer.model.inventory import RULE_PARTS, capacity

__all__ = ["DEFAULT_IDLE_DAYS", "DEFAULT_LIMIT", "FIXABLE", "KINDS", "findings"]

Finding = dict[str, Any]  # {"count": int, "items": [...]}, JSON-ready

alloc_t, inv_t, rp_t, rc_t = t.allocations, t.inventories, t.resource_providers, t.resource_classes
cons_t, proj_t, user_t, ct_t = t.consumers, t.projects, t.users, t.consumer_types
rpa_t, rpt_t = t.resource_provider_aggregates, t.resource_provider_traits

UNIT_RULES = ("min_unit", "max_unit", "step_size")
# MySQL: a superset of the over-capacity records, judged again in Python (see
# room.capacity_of). used > int(c) implies used > c, and MySQL's single-
# precision product is within a relative 1e-7 of Python's.
_HEADROOM = 1.0001
# A larger limit (the API takes any) is no limit: SQL's LIMIT takes no more.
_MAX_LIMIT = 2**31 - 1


def findings(conn: Connection, kinds: Sequence[str] = KINDS, limit: int = DEFAULT_LIMIT,
             idle_days: int = DEFAULT_IDLE_DAYS, now: datetime.datetime | None = None
             ) -> dict[str, Finding]:
    """Kind -> {"count": every fault of the kind, "items": the first
    ``limit`` (0: none)}, for ``kinds`` in KINDS' order; ValueError for an
    unknown kind. ``now`` (default: the clock) dates idle providers.
    Read it in one snapshot (Database.snapshot_read)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown audit kinds: {', '.join(unknown)}")
    if limit < 0 or idle_days < 0:
        raise ValueError("limit and idle_days are 0 or more")
    limit = min(limit, _MAX_LIMIT)
    readers: dict[str, Callable[[], Finding]] = {
        "over_capacity": lambda: _over_capacity(conn, limit),
        "unit_violations": lambda: _unit_violations(conn, limit),
        "without_inventory": lambda: _without_inventory(conn, limit),
        "split_consumers": lambda: _split_consumers(conn, limit),
        "empty_consumers": lambda: _empty_consumers(conn, limit),
        "idle_providers": lambda: _idle_providers(conn, limit, _cutoff(now, idle_days)),
        "unused_projects": lambda: _unused(conn, proj_t, cons_t.c.project_id, limit),
        "unused_users": lambda: _unused(conn, user_t, cons_t.c.user_id, limit),
    }
    return {kind: readers[kind]() for kind in KINDS if kind in kinds}


# -- shared -------------------------------------------------------------------------


def _by_code_point(conn: Connection, column: sa.ColumnElement[Any]) -> sa.ColumnElement[Any]:
    """``column`` for ORDER BY, compared byte by byte (UTF-8: by code point,
    as Python sorts), not by the database's collation."""
    dialect = conn.dialect.name
    if dialect == "postgresql":
        return column.collate("C")
    if dialect == "mysql":
        return sa.cast(column, sa.LargeBinary)
    return column  # SQLite's BINARY


def _first(conn: Connection, query: sa.Select[Any],
           order: Callable[[sa.Subquery], list[sa.ColumnElement[Any]]],
           limit: int, mariadb_switches: str = "") -> tuple[int, Sequence[Any]]:
    """(how many rows ``query`` has, the first ``limit`` of them by
    ``order``), in one statement: the rows are counted by a window, which
    also keeps the planners from walking an index in the order asked, row
    by row, to find a few faults among a million rows. (Labelled columns.)
    ``mariadb_switches``: optimizer switches for this statement on MariaDB
    (its SET STATEMENT; the statement's values are constants)."""
    found = query.add_columns(sa.func.count().over().label("found")).subquery()
    statement = sa.select(found).order_by(*order(found)).limit(max(limit, 1))
    if mariadb_switches and getattr(conn.dialect, "is_mariadb", False):
        text = str(statement.compile(conn, compile_kwargs={"literal_binds": True}))
        rows = conn.exec_driver_sql(
            f"SET STATEMENT optimizer_switch='{mariadb_switches}' FOR {text}".replace(
                "%", "%%")).all()
    else:
        rows = conn.execute(statement).all()
    return (int(rows[0].found) if rows else 0), rows[:limit]


def _finding(count: int, items: list[dict[str, Any]]) -> Finding:
    return {"count": count, "items": items}


def _stamp(updated: datetime.datetime | None, created: datetime.datetime | None) -> str | None:
    """When a row was last written, ISO 8601 UTC to the second."""
    when = updated or created
    return None if when is None else when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _cutoff(now: datetime.datetime | None, idle_days: int) -> datetime.datetime:
    """The naive UTC time before which a provider unchanged is idle."""
    now = now or datetime.datetime.now(datetime.UTC)
    if now.tzinfo is not None:
        now = now.astimezone(datetime.UTC).replace(tzinfo=None)
    try:
        return now - datetime.timedelta(days=idle_days)
    except OverflowError:  # longer ago than any date: nothing is that old
        return datetime.datetime.min


def _chunks(values: Sequence[Any], size: int = 500) -> Iterator[Sequence[Any]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


# -- over_capacity ---------------------------------------------------------------


def _over_capacity(conn: Connection, limit: int) -> Finding:
    used_t = room.used_per_record().subquery()
    used = used_t.c.used
    source = (used_t.join(inv_t, sa.and_(
        inv_t.c.resource_provider_id == used_t.c.resource_provider_id,
        inv_t.c.resource_class_id == used_t.c.resource_class_id))
        .join(rp_t, rp_t.c.id == inv_t.c.resource_provider_id)
        .join(rc_t, rc_t.c.id == inv_t.c.resource_class_id))
    columns = (rp_t.c.id.label("rp_id"), inv_t.c.resource_class_id.label("rc_id"),
               rp_t.c.uuid, rp_t.c.name, rc_t.c.name.label("rc"), inv_t.c.total,
               inv_t.c.reserved, inv_t.c.allocation_ratio, used.label("used"))
    record_capacity = room.capacity_of(inv_t, conn.dialect.name)
    rows: Iterable[Sequence[Any]]
    if record_capacity is not None:  # the database computes it as Python does
        over = (sa.select(*columns, (used - record_capacity).label("excess"))
                .select_from(source).where(used > record_capacity))
        count, rows = _first(conn, over, lambda f: [
            f.c.excess.desc(), _by_code_point(conn, f.c.uuid), _by_code_point(conn, f.c.rc)],
            limit)
    else:  # MySQL: a superset from SQL, judged and ordered here, streamed
        product = (inv_t.c.total - inv_t.c.reserved) * inv_t.c.allocation_ratio
        maybe = sa.select(*columns).select_from(source).where(used * _HEADROOM + 1 > product)
        counted = [0]

        def over_rows() -> Iterator[Sequence[Any]]:
            for row in conn.execution_options(yield_per=2000).execute(maybe):
                if int(row[8]) > capacity(row[5], row[6], row[7]):
                    counted[0] += 1
                    yield row

        rows = heapq.nsmallest(limit, over_rows(), key=lambda row: (
            capacity(row[5], row[6], row[7]) - int(row[8]), row[2], row[4]))
        count = counted[0]
    holders = _holders(conn, [(row[0], row[1]) for row in rows])
    items = []
    for rp_id, rc_id, uuid, name, rc, total, reserved, ratio, held, *_ in rows:
        cap = capacity(total, reserved, ratio)
        items.append({"resource_provider": uuid, "name": name, "resource_class": rc,
                      "total": int(total), "reserved": int(reserved),
                      "allocation_ratio": float(ratio), "capacity": cap, "used": int(held),
                      "excess": int(held) - cap, "consumers": holders[rp_id, rc_id]})
    return _finding(count, items)


def _holders(conn: Connection, pairs: list[tuple[int, int]]
             ) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """(provider id, class id) -> its consumers and what each uses, largest
    first, ties by consumer uuid; one query per 500 providers."""
    found: dict[tuple[int, int], list[dict[str, Any]]] = {pair: [] for pair in pairs}
    provider_ids = sorted({rp_id for rp_id, _ in pairs})
    for ids in _chunks(provider_ids):
        for rp_id, rc_id, consumer, held in conn.execute(
                sa.select(alloc_t.c.resource_provider_id, alloc_t.c.resource_class_id,
                          alloc_t.c.consumer_id, sa.func.sum(alloc_t.c.used))
                .where(alloc_t.c.resource_provider_id.in_(ids))
                .group_by(alloc_t.c.resource_provider_id, alloc_t.c.resource_class_id,
                          alloc_t.c.consumer_id)):
            if (rp_id, rc_id) in found:
                found[rp_id, rc_id].append({"consumer": consumer, "used": int(held)})
    for consumers in found.values():
        consumers.sort(key=lambda c: (-c["used"], c["consumer"]))
    return found


# -- unit_violations, without_inventory -----------------------------------------------


def _step_refuses(used: sa.ColumnElement[int]) -> sa.ColumnElement[bool]:
    # a step below 1 (only SQL can write one) refuses every amount; CASE keeps
    # PostgreSQL from dividing by zero
    return sa.case((inv_t.c.step_size > 0, used % inv_t.c.step_size), else_=1) != 0


def _violations(row: Any) -> list[str]:
    """The unit rules (model.inventory.RULE_PARTS) ``row``'s amount breaks."""
    if row.step_size < 1:
        return [rule for rule in UNIT_RULES[:2] if not RULE_PARTS[rule](row, 0, row.used)] + [
            "step_size"]
    return [rule for rule in UNIT_RULES if not RULE_PARTS[rule](row, 0, row.used)]


def _allocation_rows(conn: Connection, limit: int, with_inventory: bool,
                     where: Callable[[sa.ColumnElement[int]], sa.ColumnElement[bool]]
                     ) -> tuple[int, Sequence[Any]]:
    """Count and first ``limit`` of the allocation rows whose amount
    (``used``, given to ``where``) and inventory (inner, or outer joined)
    match ``where``, with their provider and class, by consumer, provider
    uuid, class name. The faulty amounts are found first on the (provider,
    class, used) index alone: MySQL would read every row to find a few."""
    def inventory_of(a: NamedFromClause) -> sa.ColumnElement[bool]:
        return sa.and_(inv_t.c.resource_provider_id == a.c.resource_provider_id,
                       inv_t.c.resource_class_id == a.c.resource_class_id)
    seen = alloc_t.alias("seen")
    faulty = (sa.select(seen.c.resource_provider_id, seen.c.resource_class_id, seen.c.used)
              .distinct()
              .select_from(seen.join(inv_t, inventory_of(seen), isouter=not with_inventory))
              .where(where(seen.c.used)).subquery())
    a = alloc_t.alias("a")
    source = (faulty.join(a, sa.and_(a.c.resource_provider_id == faulty.c.resource_provider_id,
                                     a.c.resource_class_id == faulty.c.resource_class_id,
                                     a.c.used == faulty.c.used))
              .join(rp_t, rp_t.c.id == a.c.resource_provider_id)
              .join(rc_t, rc_t.c.id == a.c.resource_class_id)
              .join(inv_t, inventory_of(a), isouter=not with_inventory))
    query = (sa.select(a.c.id, a.c.consumer_id, rp_t.c.uuid, rc_t.c.name.label("rc"),
                       a.c.used, inv_t.c.min_unit, inv_t.c.max_unit, inv_t.c.step_size)
             .select_from(source))
    return _first(conn, query, lambda f: [
        _by_code_point(conn, f.c.consumer_id), _by_code_point(conn, f.c.uuid),
        _by_code_point(conn, f.c.rc), f.c.id], limit)


def _unit_violations(conn: Connection, limit: int) -> Finding:
    count, rows = _allocation_rows(conn, limit, True, lambda used: sa.or_(
        used < inv_t.c.min_unit, used > inv_t.c.max_unit, _step_refuses(used)))
    return _finding(count, [
        {"consumer": r.consumer_id, "resource_provider": r.uuid, "resource_class": r.rc,
         "used": r.used, "min_unit": r.min_unit, "max_unit": r.max_unit,
         "step_size": r.step_size, "violates": _violations(r)} for r in rows])


def _without_inventory(conn: Connection, limit: int) -> Finding:
    count, rows = _allocation_rows(conn, limit, False, lambda _: inv_t.c.id.is_(None))
    return _finding(count, [{"consumer": r.consumer_id, "resource_provider": r.uuid,
                             "resource_class": r.rc, "used": r.used} for r in rows])


# -- split_consumers -------------------------------------------------------------------


def _counted_use() -> tuple[NamedFromClause, NamedFromClause, sa.Join,
                            sa.ColumnElement[bool]]:
    """(allocations ``a``, providers ``p``, ``a`` joined to ``p``, the
    condition that a row of ``a`` counts towards its consumer's roots): it
    does unless its
    provider is a sharing provider in an aggregate with a provider of
    another root tree that the same consumer allocates from."""
    a, p = alloc_t.alias("a"), rp_t.alias("p")
    other, q, x = alloc_t.alias("other"), rp_t.alias("q"), rp_t.alias("x")
    theirs, mine = rpa_t.alias("theirs"), rpa_t.alias("mine")
    sharing = (sa.select(rpt_t.c.resource_provider_id)
               .join(t.traits, t.traits.c.id == rpt_t.c.trait_id)
               .where(t.traits.c.name == SHARING_TRAIT))
    served = (sa.select(sa.literal(1))
              .select_from(other.join(q, q.c.id == other.c.resource_provider_id)
                           .join(x, x.c.root_provider_id == q.c.root_provider_id)
                           .join(theirs, theirs.c.resource_provider_id == x.c.id)
                           .join(mine, mine.c.aggregate_id == theirs.c.aggregate_id))
              .where(other.c.consumer_id == a.c.consumer_id,
                     q.c.root_provider_id != p.c.root_provider_id,
                     mine.c.resource_provider_id == p.c.id)
              .exists())
    joined = a.join(p, p.c.id == a.c.resource_provider_id)
    return a, p, joined, sa.not_(sa.and_(p.c.id.in_(sharing), served))


def _split_consumers(conn: Connection, limit: int) -> Finding:
    # only consumers on two providers or more can be split: the costly test
    # is made on their rows alone (this one reads no other table)
    a0 = alloc_t.alias("a0")
    several = (sa.select(a0.c.consumer_id).group_by(a0.c.consumer_id)
               .having(sa.func.min(a0.c.resource_provider_id)
                       != sa.func.max(a0.c.resource_provider_id)).subquery())
    a, p, joined, counts = _counted_use()
    split = (sa.select(a.c.consumer_id)
             .select_from(joined.join(several, several.c.consumer_id == a.c.consumer_id))
             .where(counts).group_by(a.c.consumer_id)
             .having(sa.func.min(p.c.root_provider_id) != sa.func.max(p.c.root_provider_id)))
    # MariaDB would evaluate the GROUP BY of ``several`` again for each
    # allocation row ("lateral derived"): seconds at a million rows
    count, rows = _first(conn, split, lambda f: [_by_code_point(conn, f.c.consumer_id)], limit,
                         mariadb_switches="split_materialized=off")
    if not rows:
        return _finding(count, [])
    uuids = [row.consumer_id for row in rows]
    root = rp_t.alias("root")
    roots: dict[str, dict[str, dict[str, Any]]] = {uuid: {} for uuid in uuids}
    for ids in _chunks(uuids):
        for consumer, root_uuid, root_name, rc, held in conn.execute(
                sa.select(a.c.consumer_id, root.c.uuid, root.c.name, rc_t.c.name,
                          sa.func.sum(a.c.used))
                .select_from(joined.join(root, root.c.id == p.c.root_provider_id)
                             .join(rc_t, rc_t.c.id == a.c.resource_class_id))
                .where(a.c.consumer_id.in_(ids), counts)
                .group_by(a.c.consumer_id, root.c.uuid, root.c.name, rc_t.c.name)):
            entry = roots[consumer].setdefault(
                root_uuid, {"uuid": root_uuid, "name": root_name, "resources": {}})
            entry["resources"][rc] = int(held)
    details = _consumer_rows(conn, uuids)
    items = []
    for uuid in uuids:
        item = details.get(uuid) or _missing_consumer(uuid)
        item["roots"] = [{**entry, "resources": dict(sorted(entry["resources"].items()))}
                         for _, entry in sorted(roots[uuid].items())]
        items.append(item)
    return _finding(count, items)


def _consumer_columns() -> tuple[sa.FromClause, tuple[sa.ColumnElement[Any], ...]]:
    source = (cons_t.outerjoin(proj_t, proj_t.c.id == cons_t.c.project_id)
              .outerjoin(user_t, user_t.c.id == cons_t.c.user_id)
              .outerjoin(ct_t, ct_t.c.id == cons_t.c.consumer_type_id))
    return source, (cons_t.c.uuid, proj_t.c.external_id.label("project"),
                    user_t.c.external_id.label("user"), ct_t.c.name.label("type"),
                    cons_t.c.generation, cons_t.c.updated_at, cons_t.c.created_at)


def _consumer_item(row: Sequence[Any]) -> dict[str, Any]:
    uuid, project, user, kind, generation, updated, created = row
    return {"consumer": uuid, "project_id": project, "user_id": user, "consumer_type": kind,
            "generation": generation, "updated_at": _stamp(updated, created)}


def _missing_consumer(uuid: str) -> dict[str, Any]:
    """Allocations whose consumer has no row (written before consumers were)."""
    return _consumer_item((uuid, None, None, None, None, None, None))


def _consumer_rows(conn: Connection, uuids: list[str]) -> dict[str, dict[str, Any]]:
    source, columns = _consumer_columns()
    found: dict[str, dict[str, Any]] = {}
    for ids in _chunks(uuids):
        for row in conn.execute(sa.select(*columns).select_from(source)
                                .where(cons_t.c.uuid.in_(ids))):
            found[row[0]] = _consumer_item(row)
    return found


# -- empty_consumers, idle_providers, unused_projects and unused_users -------------------


def _empty_consumers(conn: Connection, limit: int) -> Finding:
    source, columns = _consumer_columns()
    empty = sa.select(*columns).select_from(source).where(~sa.exists().where(
        alloc_t.c.consumer_id == cons_t.c.uuid))
    count, rows = _first(conn, empty, lambda f: [_by_code_point(conn, f.c.uuid)], limit)
    return _finding(count, [_consumer_item(row[:7]) for row in rows])


def _idle_providers(conn: Connection, limit: int, cutoff: datetime.datetime) -> Finding:
    child = rp_t.alias("child")
    idle = (sa.select(rp_t.c.uuid, rp_t.c.name, rp_t.c.generation, rp_t.c.updated_at,
                      rp_t.c.created_at)
            .where(~sa.exists().where(inv_t.c.resource_provider_id == rp_t.c.id),
                   ~sa.exists().where(alloc_t.c.resource_provider_id == rp_t.c.id),
                   ~sa.exists().where(child.c.parent_provider_id == rp_t.c.id),
                   sa.func.coalesce(rp_t.c.updated_at, rp_t.c.created_at) <= cutoff))
    count, rows = _first(conn, idle, lambda f: [_by_code_point(conn, f.c.uuid)], limit)
    return _finding(count, [{"resource_provider": uuid, "name": name, "generation": generation,
                             "updated_at": _stamp(updated, created)}
                            for uuid, name, generation, updated, created, _ in rows])


def _unused(conn: Connection, table: sa.Table, reference: sa.ColumnElement[int],
            limit: int) -> Finding:
    """The rows of ``table`` (projects, users) no consumer refers to: joined
    to the distinct ids in use, which every backend reads once (users have
    no index of their own on consumers)."""
    in_use = sa.select(reference.label("id")).distinct().subquery()
    unused = (sa.select(table.c.external_id)
              .select_from(table.outerjoin(in_use, in_use.c.id == table.c.id))
              .where(in_use.c.id.is_(None)))
    count, rows = _first(conn, unused, lambda f: [_by_code_point(conn, f.c.external_id)],
                         limit)
    return _finding(count, [{"external_id": row.external_id} for row in rows])
