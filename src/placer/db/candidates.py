"""The database behind the candidate service: placer.candidates.store's
SearchStore and CountStore, read in one transaction. The roots' SQL is root_filter.py's, the
trees' queries trees.py's."""

import weakref
from collections.abc import Callable, Collection
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import SHARING_TRAIT, Provider, Snapshot
from placer.candidates.store import (
    ChildRow,
    CountStore,
    FoundProvider,
    InventoryRow,
    Names,
    Plan,
    RankedRoot,
    RootRow,
    Step,
)
from placer.db import room, root_filter, scores, trees
from placer.db import tables as t
from placer.db.engine import Database, json_rows, plain_rows
from placer.model.inventory import capacity as model_capacity

T = TypeVar("T")

rp_t = t.resource_providers
inv_t = t.inventories
rpt_t = t.resource_provider_traits
rpa_t = t.resource_provider_aggregates


# Each database's providers' records kept by this process (keep_records).
_RECORDS: "weakref.WeakKeyDictionary[Database, trees.Records]" = weakref.WeakKeyDictionary()


def keep_records(db: Database, size: int) -> None:
    """Have this process keep the inventories and traits of up to ``size``
    providers between its candidate reads of ``db`` (0: read them each
    time); see trees.Records."""
    if size > 0:
        _RECORDS[db] = trees.Records(size)
    else:
        _RECORDS.pop(db, None)


def reader(db: Database) -> Callable[[Callable[[CountStore], T]], T]:
    """Runs a function on a CandidateStore, in one read transaction."""
    records = _RECORDS.get(db)
    return lambda fn: db.read(lambda conn: fn(CandidateStore(conn, db.scores_kept, records)))


# Up to this many providers (by their ids' span), the candidate roots are
# not filtered by room (only by traits, aggregates, in_tree...): the engine
# judges every tree anyway, and reading a small cloud's trees costs little (their records kept,
# trees.Records, and their usages one query), where the room tests cost a
# subquery per root and class (on MariaDB at 1,000 hosts, 35 ms of an 85 ms
# answer).
SMALL_CLOUD = 4000

# Statements built once: constructing a SQLAlchemy statement per request
# cost more than the small lookups themselves.
_IDS_BY_NAME = {
    table: sa.text(f"SELECT {column}, id FROM {table} WHERE {column} IN :names")
    .bindparams(sa.bindparam("names", expanding=True))
    for table, column in (("resource_classes", "name"), ("traits", "name"),
                          ("placement_aggregates", "uuid"))}


def _sharing_providers() -> sa.Select[*tuple[Any, ...]]:
    return (sa.select(rpt_t.c.resource_provider_id)
            .join(t.traits, t.traits.c.id == rpt_t.c.trait_id)
            .where(t.traits.c.name == SHARING_TRAIT))


# Roots of the sharing providers with inventory of some classes (built once:
# every candidates request asks).
_SHARING_ROOTS = (
    sa.select(rp_t.c.root_provider_id).distinct()
    .join(inv_t, inv_t.c.resource_provider_id == rp_t.c.id)
    .where(inv_t.c.resource_class_id.in_(sa.bindparam("rc_ids", expanding=True)),
           rp_t.c.id.in_(_sharing_providers())))


class CandidateStore:
    """The candidate service's stores, on one connection."""

    def __init__(self, conn: Connection, scores_kept: bool = True,
                 records: trees.Records | None = None):
        self.conn = conn
        self.scores_kept = scores_kept
        self.records = records
        self._id_range: tuple[int, int] | None = None

    def names(self, request: CandidateRequest) -> Names:
        aggs = {u for g in request.groups for s in (*g.member_of, g.forbidden_aggs) for u in s}

        def ids(table: str, names: Collection[str]) -> dict[str, int]:
            if not names:
                return {}
            return dict(self.conn.execute(_IDS_BY_NAME[table], {"names": sorted(names)}).all())

        return Names(ids("resource_classes", request.resource_classes()),
                     ids("traits", request.trait_names()), ids("placement_aggregates", aggs))

    def in_tree_roots(self, uuids: set[str]) -> dict[str, int]:
        return dict(self.conn.execute(sa.select(rp_t.c.uuid, rp_t.c.root_provider_id)
                                      .where(rp_t.c.uuid.in_(uuids))).all())

    def any_member(self, sets: list[tuple[int, ...]]) -> bool:
        p = rp_t.alias("p")
        conditions = root_filter.Conditions(self.conn.dialect.name)
        return self.conn.execute(sa.select(p.c.id).where(
            *conditions.member_of(p.c.id, sets)).limit(1)).first() is not None

    def sharing_roots(self, rc_ids: list[int]) -> set[int]:
        return set(self.conn.execute(_SHARING_ROOTS, {"rc_ids": rc_ids}).scalars())

    def classless_sharing_roots(self, rc_ids: list[int]) -> set[int]:
        s, q, sa_link, qa_link = (rp_t.alias("s"), rp_t.alias("q"), rpa_t.alias("sl"),
                                  rpa_t.alias("ql"))
        holds_class = sa.exists(sa.select(1).select_from(
            q.join(inv_t, inv_t.c.resource_provider_id == q.c.id)).where(
            q.c.root_provider_id == s.c.root_provider_id,
            inv_t.c.resource_class_id.in_(rc_ids)))
        serving = (sa.select(sa_link.c.aggregate_id)
                   .join(inv_t, inv_t.c.resource_provider_id == sa_link.c.resource_provider_id)
                   .where(inv_t.c.resource_class_id.in_(rc_ids),
                          sa_link.c.resource_provider_id.in_(_sharing_providers())))
        served = sa.exists(sa.select(1).select_from(
            q.join(qa_link, qa_link.c.resource_provider_id == q.c.id)).where(
            q.c.root_provider_id == s.c.root_provider_id, qa_link.c.aggregate_id.in_(serving)))
        return set(self.conn.execute(
            sa.select(s.c.root_provider_id).distinct()
            .where(s.c.id.in_(_sharing_providers()), sa.or_(holds_class, served))).scalars())

    def id_range(self) -> tuple[int, int]:
        # read once per store (roots() and the shuffled walk both ask);
        # two subqueries: planners read one end of the index for each,
        # where MIN and MAX in one select scan every row (SQLite)
        if self._id_range is None:
            low, high = self.conn.exec_driver_sql(
                "SELECT (SELECT MIN(id) FROM resource_providers),"
                " (SELECT MAX(id) FROM resource_providers)").one()
            self._id_range = (0, -1) if low is None else (low, high)
        return self._id_range

    def roots(self, plan: Plan) -> "_Roots":
        low, high = self.id_range()
        room = high - low + 1 > SMALL_CLOUD
        if not room:
            plan = tuple(step for step in plan if not _room_only(step))
        return _Roots(self.conn, root_filter.roots_sql(self.conn.dialect, plan, room))

    def class_names(self) -> dict[int, str]:
        return trees.all_class_names(self.conn)

    def trees(self, root_ids: list[int], class_names: dict[int, str] | None = None,
              aggregates: bool = True) -> list[Provider]:
        return trees.load_trees(self.conn, root_ids, class_names, aggregates, self.records)

    def names_of_classes(self, names: list[str]) -> dict[str, int]:
        if not names:
            return {}
        return dict(self.conn.execute(_IDS_BY_NAME["resource_classes"], {"names": names}).all())

    def all_roots(self) -> list[RootRow]:
        return list(plain_rows(self.conn.exec_driver_sql(_ALL_ROOTS)))

    def children(self) -> list[ChildRow]:
        return list(plain_rows(self.conn.exec_driver_sql(_CHILDREN)))

    def inventories(self, rc_ids: list[int]) -> list[InventoryRow]:
        if not rc_ids:
            return []
        i = inv_t.alias("i")
        capacity = room.capacity_of(i, self.conn.dialect.name)
        used = room.used_of(i)
        units = (i.c.min_unit, i.c.max_unit, i.c.step_size)
        where = i.c.resource_class_id.in_(rc_ids)
        if capacity is not None:
            return list(plain_rows(self.conn.execute(sa.select(
                i.c.resource_provider_id, i.c.resource_class_id, capacity - used, *units)
                .where(where))))
        # MySQL: the capacity rule runs here, on what Python reads
        rows = plain_rows(self.conn.execute(sa.select(
            i.c.resource_provider_id, i.c.resource_class_id, i.c.total, i.c.reserved,
            i.c.allocation_ratio, used, *units).where(where)))
        return [(pid, rc, min(model_capacity(total, reserved, ratio), 2 ** 62) - int(in_use),
                 *rest) for pid, rc, total, reserved, ratio, in_use, *rest in rows]

    def whole_cloud(self, request: CandidateRequest, rc_ids: list[int]) -> Snapshot:
        if not rc_ids:
            return Snapshot([])
        with_inventory = sa.select(inv_t.c.resource_provider_id).where(
            inv_t.c.resource_class_id.in_(rc_ids))
        sharing = _sharing_providers().where(rpt_t.c.resource_provider_id.in_(with_inventory))
        shared_aggs = sa.select(rpa_t.c.aggregate_id).where(
            rpa_t.c.resource_provider_id.in_(sharing))
        served = sa.select(rpa_t.c.resource_provider_id).where(
            rpa_t.c.aggregate_id.in_(shared_aggs))
        in_trees = [g.in_tree for g in request.groups if g.in_tree]
        roots = self.conn.execute(sa.select(rp_t.c.root_provider_id).distinct().where(
            sa.or_(rp_t.c.id.in_(with_inventory), rp_t.c.id.in_(served),
                   rp_t.c.uuid.in_(in_trees)))).scalars()
        return Snapshot(trees.load_trees(self.conn, sorted(roots), records=self.records))

    def provider_root(self, uuid: str) -> FoundProvider | None:
        # MySQL compares uuids regardless of case: the stored spelling is kept
        found = self.conn.execute(sa.select(rp_t.c.uuid, rp_t.c.root_provider_id)
                                  .where(rp_t.c.uuid == uuid)).first()
        return None if found is None else FoundProvider(found.uuid, found.root_provider_id)


    def ranked(self, rc_id: int, spread: bool, after: tuple[int, int], size: int,
               least: int) -> list[RankedRoot]:
        # one index range: the class, then the walk key from where the last
        # page ended (the rows bare: the caller filters the trees it takes)
        keys = self.conn.execute(_RANKED[spread], {
            "rc": rc_id, "after": scores.walk_key(*after) if after[0] >= 0 else -1,
            "least": least, "size": size}).scalars().all()
        return [RankedRoot(*scores.split_key(k)) for k in keys]

    def free(self, root_ids: list[int], rc_ids: list[int],
             least: dict[int, int] | None = None) -> dict[int, dict[int, int]]:
        found: dict[int, dict[int, int]] = {}
        if not root_ids or not rc_ids:
            return found
        short: set[int] = set()
        for root, rc, free, largest in plain_rows(trees.where_in(
                self.conn, _FREE_SQL.format(rc_ids=",".join(str(int(i)) for i in rc_ids)),
                root_ids)):
            found.setdefault(root, {})[rc] = free
            if least and largest < least.get(rc, 0):
                short.add(root)
        if least:  # a tree without a row of a needed class holds none of it
            needed = [rc for rc, amount in least.items() if amount]
            short.update(root for root, held in found.items()
                         if any(rc not in held for rc in needed))
        return {root: held for root, held in found.items() if root not in short}


_ALL_ROOTS = ("SELECT id, uuid, name FROM resource_providers WHERE parent_provider_id IS NULL"
              " ORDER BY uuid")
_CHILDREN = ("SELECT id, root_provider_id FROM resource_providers"
             " WHERE parent_provider_id IS NOT NULL")

_RANKED = {spread: sa.text(
    f"SELECT {key} FROM placer_tree_scores WHERE resource_class_id = :rc"
    f" AND {key} > :after AND largest >= :least ORDER BY {key} LIMIT :size")
    for spread, key in ((True, "spread_key"), (False, "pack_key"))}
_FREE_SQL = ("SELECT root_id, resource_class_id, free, largest FROM placer_tree_scores"
             " WHERE resource_class_id IN ({rc_ids}) AND root_id")


def _room_only(step: Step) -> bool:
    """A class's step that tests nothing but room (no forbidden trait or
    aggregate): without the room test it says nothing."""
    if step[0] != "class":
        return False
    _, _rc, _amount, forbidden, forbidden_aggs, _sharing = step
    return not forbidden and not forbidden_aggs


class _Roots:
    """The candidate roots of one plan: its SQL, with a range and an order
    appended, or run on lists of ids."""

    def __init__(self, conn: Connection, sql: str):
        self.conn, self.sql = conn, sql
        # SQLite (ids as one parameter) and PostgreSQL take long lists well
        self.long_lists = conn.dialect.name != "mysql"

    def after(self, last: int, size: int) -> list[int]:
        sql = (f"{self.sql} AND resource_providers.id > {int(last)}"
               f" ORDER BY resource_providers.id LIMIT {int(size)}")
        found = json_rows(self.conn, sql, "id")
        if found is not None:
            return sorted(row[0] for row in found)
        return list(self.conn.exec_driver_sql(sql).scalars())

    def among(self, ids: list[int]) -> set[int]:
        return set(trees.where_in(self.conn, f"{self.sql} AND resource_providers.id",
                                  ids).scalars())

    def all(self) -> list[int]:
        return list(self.conn.exec_driver_sql(
            f"{self.sql} ORDER BY resource_providers.id").scalars())
