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
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

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
# room.HEADROOM): used > int(c) implies used > c, and MySQL's single-precision
# product is within a relative 1e-7 of Python's.
# A larger limit (the API takes any) is no limit: SQL's LIMIT takes no more.
_MAX_LIMIT = 2**31 - 1
# The order the kinds are read in (the answer is in KINDS' order): those that
# read the allocations by provider, with the inventories, one after the
# other, while the database still holds those pages in memory (MariaDB's
# default 128 MB does not hold all that the audit reads); then the consumers.
# MySQL: the most records whose allocations a kind then reads by a list of
# them (its rows: more, and the kind reads them on its own).
_FEW_RECORDS = 1000
_READ_ORDER = ("over_capacity", "unit_violations", "without_inventory", "idle_providers",
               "split_consumers", "empty_consumers", "unused_projects", "unused_users")
assert sorted(_READ_ORDER) == sorted(KINDS)


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
    # MySQL: one read of the records for the kinds about them, when it
    # replaces two statements or more
    shared = conn.dialect.name == "mysql" and (
        "over_capacity" in kinds or {"unit_violations", "without_inventory"} <= set(kinds))
    read: list[_RecordFaults] = []

    def record_faults() -> _RecordFaults | None:
        if shared and not read:
            read.append(_record_faults(conn, limit))
        return read[0] if read else None

    readers: dict[str, Callable[[], Finding]] = {
        "over_capacity": lambda: _over_capacity(conn, limit, record_faults()),
        "unit_violations": lambda: _unit_violations(conn, limit, record_faults()),
        "without_inventory": lambda: _without_inventory(conn, limit, record_faults()),
        "split_consumers": lambda: _split_consumers(conn, limit),
        "empty_consumers": lambda: _empty_consumers(conn, limit),
        "idle_providers": lambda: _idle_providers(conn, limit, _cutoff(now, idle_days)),
        "unused_projects": lambda: _unused(conn, proj_t, cons_t.c.project_id, limit),
        "unused_users": lambda: _unused(conn, user_t, cons_t.c.user_id, limit),
    }
    found = {kind: readers[kind]() for kind in _READ_ORDER if kind in kinds}
    return {kind: found[kind] for kind in KINDS if kind in found}


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
           limit: int, mariadb: str = "") -> tuple[int, Sequence[Any]]:
    """(how many rows ``query`` has, the first ``limit`` of them by
    ``order``), in one statement: the rows are counted by a window, which
    also keeps the planners from walking an index in the order asked, row
    by row, to find a few faults among a million rows. (Labelled columns.)
    ``mariadb``: see ``_execute``."""
    found = query.add_columns(sa.func.count().over().label("found")).subquery()
    statement = sa.select(found).order_by(*order(found)).limit(max(limit, 1))
    rows = _execute(conn, statement, mariadb).all()
    return (int(rows[0].found) if rows else 0), rows[:limit]


def _execute(conn: Connection, statement: sa.Select[Any], mariadb: str = "",
             stream: bool = False) -> sa.CursorResult[*tuple[Any, ...]]:
    """``statement``'s result (``stream``: fetched as it is read). On
    MariaDB, ``mariadb`` sets variables for this statement alone (its SET
    STATEMENT, such as ``optimizer_switch='...'``; the statement's values
    are then constants)."""
    if stream:
        conn = conn.execution_options(yield_per=2000)
    if mariadb and getattr(conn.dialect, "is_mariadb", False):
        text = str(statement.compile(conn, compile_kwargs={"literal_binds": True}))
        return conn.exec_driver_sql(f"SET STATEMENT {mariadb} FOR {text}".replace("%", "%%"))
    return conn.execute(statement)


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


class _RecordFaults(NamedTuple):
    """MySQL: what one read of every (provider, class) record that the
    allocations use finds (``_record_faults``)."""
    over_count: int
    over_rows: list[Sequence[Any]]  # the first ``limit`` (_over_capacity's columns)
    unit_records: list[tuple[int, int]] | None  # None: more than _FEW_RECORDS
    missing_records: list[tuple[int, int]] | None


def _record_faults(conn: Connection, limit: int) -> _RecordFaults:
    """MySQL: every record the allocations use, its use summed (and its
    smallest and largest amount) in one read of the (provider, class, used)
    index, then its inventory looked up; MariaDB would otherwise read one
    index range per inventory ("lateral derived": twice the time). From the
    database, a superset of the records over capacity, judged and ordered
    here (see room.HEADROOM), streamed; the records whose amounts may break a
    unit rule (a step size other than 1, or the smallest or largest amount
    out of bounds); and those without inventory. The unit and inventory
    kinds then read the allocations of the records listed only."""
    a = alloc_t
    used_t = (sa.select(a.c.resource_provider_id, a.c.resource_class_id,
                        sa.func.sum(a.c.used).label("used"), sa.func.min(a.c.used).label("lo"),
                        sa.func.max(a.c.used).label("hi"))
              .group_by(a.c.resource_provider_id, a.c.resource_class_id).subquery())
    used = used_t.c.used
    product = (inv_t.c.total - inv_t.c.reserved) * inv_t.c.allocation_ratio
    source = (used_t.outerjoin(inv_t, sa.and_(
        inv_t.c.resource_provider_id == used_t.c.resource_provider_id,
        inv_t.c.resource_class_id == used_t.c.resource_class_id))
        .join(rp_t, rp_t.c.id == used_t.c.resource_provider_id)
        .join(rc_t, rc_t.c.id == used_t.c.resource_class_id))
    maybe = (sa.select(rp_t.c.id.label("rp_id"), used_t.c.resource_class_id.label("rc_id"),
                       rp_t.c.uuid, rp_t.c.name, rc_t.c.name.label("rc"), inv_t.c.total,
                       inv_t.c.reserved, inv_t.c.allocation_ratio, used.label("used"),
                       inv_t.c.id.label("inventory"), used_t.c.lo, used_t.c.hi,
                       inv_t.c.min_unit, inv_t.c.max_unit, inv_t.c.step_size)
             .select_from(source)
             .where(sa.or_(inv_t.c.id.is_(None),
                           used * room.HEADROOM[0] + room.HEADROOM[1] > product,
                           used_t.c.lo < inv_t.c.min_unit, used_t.c.hi > inv_t.c.max_unit,
                           inv_t.c.step_size != 1))
             .prefix_with("STRAIGHT_JOIN", dialect="mysql"))
    counted = [0]
    lists: dict[str, list[tuple[int, int]] | None] = {"units": [], "missing": []}

    def note(name: str, record: tuple[int, int]) -> None:
        listed = lists[name]
        if listed is not None:
            listed.append(record)
            if len(listed) > _FEW_RECORDS:
                lists[name] = None

    def over_rows() -> Iterator[Sequence[Any]]:
        for row in _execute(conn, maybe, "optimizer_switch='split_materialized=off'",
                            stream=True):
            if row.inventory is None:
                note("missing", (row.rp_id, row.rc_id))
                continue
            if row.lo < row.min_unit or row.hi > row.max_unit or row.step_size != 1:
                note("units", (row.rp_id, row.rc_id))
            if int(row.used) > capacity(row.total, row.reserved, row.allocation_ratio):
                counted[0] += 1
                yield row

    judged = over_rows()
    rows = heapq.nsmallest(limit, judged, key=lambda row: (
        capacity(row[5], row[6], row[7]) - int(row[8]), row[2], row[4]))
    for _ in judged:  # a limit of 0 reads nothing: the counts and lists need every row
        pass
    return _RecordFaults(counted[0], rows, lists["units"], lists["missing"])


def _over_capacity(conn: Connection, limit: int, faults: _RecordFaults | None) -> Finding:
    record_capacity = room.capacity_of(inv_t, conn.dialect.name)
    rows: Sequence[Sequence[Any]]
    if record_capacity is not None:  # the database computes it as Python does
        used_t = room.used_per_record().subquery()
        used = used_t.c.used
        source = (used_t.join(inv_t, sa.and_(
            inv_t.c.resource_provider_id == used_t.c.resource_provider_id,
            inv_t.c.resource_class_id == used_t.c.resource_class_id))
            .join(rp_t, rp_t.c.id == inv_t.c.resource_provider_id)
            .join(rc_t, rc_t.c.id == inv_t.c.resource_class_id))
        over = (sa.select(rp_t.c.id.label("rp_id"), inv_t.c.resource_class_id.label("rc_id"),
                          rp_t.c.uuid, rp_t.c.name, rc_t.c.name.label("rc"), inv_t.c.total,
                          inv_t.c.reserved, inv_t.c.allocation_ratio, used.label("used"),
                          (used - record_capacity).label("excess"))
                .select_from(source).where(used > record_capacity))
        count, rows = _first(conn, over, lambda f: [
            f.c.excess.desc(), _by_code_point(conn, f.c.uuid), _by_code_point(conn, f.c.rc)],
            limit)
    else:  # MySQL: judged and ordered here
        count, rows, *_ = faults or _record_faults(conn, limit)
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
                     where: Callable[[sa.ColumnElement[int]], sa.ColumnElement[bool]],
                     records: list[tuple[int, int]] | None = None
                     ) -> tuple[int, Sequence[Any]]:
    """Count and first ``limit`` of the allocation rows whose amount
    (``used``, given to ``where``) and inventory (inner, or outer joined)
    match ``where``, with their provider and class, by consumer, provider
    uuid, class name. The faulty amounts are found first on the (provider,
    class, used) index alone: MySQL would read every row to find a few.
    ``records``: (provider id, class id) pairs the rows are all among."""
    if records is not None and not records:
        return 0, []

    def inventory_of(a: NamedFromClause) -> sa.ColumnElement[bool]:
        return sa.and_(inv_t.c.resource_provider_id == a.c.resource_provider_id,
                       inv_t.c.resource_class_id == a.c.resource_class_id)
    a = alloc_t.alias("a")
    found: sa.FromClause = a
    if records is None:
        seen = alloc_t.alias("seen")
        faulty = (sa.select(seen.c.resource_provider_id, seen.c.resource_class_id, seen.c.used)
                  .distinct()
                  .select_from(seen.join(inv_t, inventory_of(seen), isouter=not with_inventory))
                  .where(where(seen.c.used)).subquery())
        found = faulty.join(a, sa.and_(
            a.c.resource_provider_id == faulty.c.resource_provider_id,
            a.c.resource_class_id == faulty.c.resource_class_id, a.c.used == faulty.c.used))
    source = (found.join(rp_t, rp_t.c.id == a.c.resource_provider_id)
              .join(rc_t, rc_t.c.id == a.c.resource_class_id)
              .join(inv_t, inventory_of(a), isouter=not with_inventory))
    query = (sa.select(a.c.id, a.c.consumer_id, rp_t.c.uuid, rc_t.c.name.label("rc"),
                       a.c.used, inv_t.c.min_unit, inv_t.c.max_unit, inv_t.c.step_size)
             .select_from(source))
    if records is not None:
        query = query.where(
            sa.tuple_(a.c.resource_provider_id, a.c.resource_class_id).in_(records),
            where(a.c.used))
    return _first(conn, query, lambda f: [
        _by_code_point(conn, f.c.consumer_id), _by_code_point(conn, f.c.uuid),
        _by_code_point(conn, f.c.rc), f.c.id], limit)


def _unit_violations(conn: Connection, limit: int, faults: _RecordFaults | None) -> Finding:
    count, rows = _allocation_rows(conn, limit, True, lambda used: sa.or_(
        used < inv_t.c.min_unit, used > inv_t.c.max_unit, _step_refuses(used)),
        faults.unit_records if faults else None)
    return _finding(count, [
        {"consumer": r.consumer_id, "resource_provider": r.uuid, "resource_class": r.rc,
         "used": r.used, "min_unit": r.min_unit, "max_unit": r.max_unit,
         "step_size": r.step_size, "violates": _violations(r)} for r in rows])


def _without_inventory(conn: Connection, limit: int, faults: _RecordFaults | None) -> Finding:
    count, rows = _allocation_rows(conn, limit, False, lambda _: inv_t.c.id.is_(None),
                                   faults.missing_records if faults else None)
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
    a, p, joined, counts = _counted_use()
    if conn.dialect.name == "mysql":
        # MariaDB: the providers' kinds are looked up, not joined again per
        # row; the aggregates are probed per consumer, not all paired first
        split = _split_in_one_pass(a, p, joined, counts)
        mariadb = "optimizer_switch='derived_merge=off,exists_to_in=off'"
    else:
        split, mariadb = _split_among_several(a, p, joined, counts), ""
    count, rows = _first(conn, split, lambda f: [_by_code_point(conn, f.c.consumer_id)], limit,
                         mariadb=mariadb)
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


def _split_among_several(a: NamedFromClause, p: NamedFromClause, joined: sa.Join,
                         counts: sa.ColumnElement[bool]) -> sa.Select[Any]:
    """The split consumers (column consumer_id), SQLite's and PostgreSQL's
    way: the consumers on two providers or more, found from the allocations
    alone, then their rows judged one by one (``_counted_use``)."""
    a0 = alloc_t.alias("a0")
    several = (sa.select(a0.c.consumer_id).group_by(a0.c.consumer_id)
               .having(sa.func.min(a0.c.resource_provider_id)
                       != sa.func.max(a0.c.resource_provider_id)).subquery())
    return (sa.select(a.c.consumer_id)
            .select_from(joined.join(several, several.c.consumer_id == a.c.consumer_id))
            .where(counts).group_by(a.c.consumer_id)
            .having(sa.func.min(p.c.root_provider_id) != sa.func.max(p.c.root_provider_id)))


def _split_in_one_pass(a: NamedFromClause, p: NamedFromClause, joined: sa.Join,
                       counts: sa.ColumnElement[bool]) -> sa.Select[Any]:
    """The split consumers (column consumer_id), MySQL's way: one pass over
    the allocations, sorted by consumer, each row with its provider's root
    or, for a sharing provider, the provider. Per consumer, the roots of
    its providers that are not sharing ones (``own``), which always count,
    and its sharing providers (``shared``). A consumer with one root is not
    split; one with two own roots is. One with one own root and one sharing
    provider in another tree is split unless that provider is in an
    aggregate with a provider of its own root's tree. Any other (sharing
    providers only, or several) is judged row by row, as
    ``_split_among_several`` judges them all: MySQL would read every
    consumer's rows again through the consumer index, a second or more per
    100,000 consumers."""
    shared_ids = (sa.select(rpt_t.c.resource_provider_id)
                  .join(t.traits, t.traits.c.id == rpt_t.c.trait_id)
                  .where(t.traits.c.name == SHARING_TRAIT))
    is_shared = rp_t.c.id.in_(shared_ids)
    kinds = sa.select(rp_t.c.id, rp_t.c.root_provider_id.label("root"),
                      sa.case((is_shared, None), else_=rp_t.c.root_provider_id).label("own"),
                      sa.case((is_shared, rp_t.c.id), else_=None).label("shared")).subquery("kinds")
    a0 = alloc_t.alias("a0")
    per_consumer = (
        sa.select(a0.c.consumer_id, sa.func.min(kinds.c.own).label("own_lo"),
                  sa.func.max(kinds.c.own).label("own_hi"),
                  sa.func.min(kinds.c.shared).label("shared_lo"),
                  sa.func.max(kinds.c.shared).label("shared_hi"))
        .select_from(a0.join(kinds, kinds.c.id == a0.c.resource_provider_id))
        .group_by(a0.c.consumer_id)
        .having(sa.func.min(kinds.c.root) != sa.func.max(kinds.c.root))
        # the table read through and sorted once, not row by row through an index
        .prefix_with("STRAIGHT_JOIN SQL_BIG_RESULT", dialect="mysql")
        .subquery("per_consumer"))
    c = per_consumer.c
    x, theirs, mine = rp_t.alias("x"), rpa_t.alias("theirs"), rpa_t.alias("mine")
    served_by_own = (sa.select(sa.literal(1))
                     .select_from(x.join(theirs, theirs.c.resource_provider_id == x.c.id)
                                  .join(mine, mine.c.aggregate_id == theirs.c.aggregate_id))
                     .where(x.c.root_provider_id == c.own_lo,
                            mine.c.resource_provider_id == c.shared_lo)
                     .exists())
    counted_roots = (sa.select(sa.func.count(sa.distinct(p.c.root_provider_id)))
                     .select_from(joined).where(a.c.consumer_id == c.consumer_id, counts)
                     .scalar_subquery())
    return sa.select(c.consumer_id).where(sa.or_(
        c.own_lo != c.own_hi,
        sa.and_(c.own_lo == c.own_hi, c.shared_lo == c.shared_hi, ~served_by_own),
        sa.and_(sa.or_(c.own_lo.is_(None), c.shared_lo != c.shared_hi), counted_roots > 1)))


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
    # the consumers are read on their uuid index, in order, and only the
    # empty ones' rows: MySQL would read every row, in the order of the
    # table, and look each one up in the allocations' consumer index
    source, columns = _consumer_columns()
    seen = cons_t.alias("seen")
    empty = (sa.select(*columns).select_from(seen.join(source, cons_t.c.id == seen.c.id))
             .where(~sa.exists().where(alloc_t.c.consumer_id == seen.c.uuid)))
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
