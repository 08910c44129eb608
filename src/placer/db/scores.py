"""The stored scores of trees, which spread and pack walk (model/scores.py
says what they are): kept exact, while one of those orders is configured,
by every write Placer makes, in the write's own transaction, and checked
against the providers' generations. Under ``id`` or ``random`` writes pay
nothing for them and leave them stale; a server started with spread or
pack makes them exact first (``make_exact``).

A write names the trees it changes (``touch``: every generation bump,
provider creation, re-parenting and deletion); ``Database`` recomputes
those trees' rows before it commits (``refresh``). A write that does not
(the reference's, after a roll-back and forward again, or rows written with
SQL) leaves a tree whose providers' count, generations or ids no longer
match its version row: ``stale`` counts them for placement-status, and
``rebuild`` recomputes every tree. Stale scores only change the order of
an answer, never its validity.
"""

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.engine import Connection

from placer.db import room
from placer.db import tables as t
from placer.model.inventory import capacity
from placer.model.scores import FULL, tree_scores

rp_t, inv_t, alloc_t = t.resource_providers, t.inventories, t.allocations
scores_t, versions_t = t.tree_scores, t.tree_versions
TABLES = (scores_t, versions_t)
VERSION_TABLE = "placer_alembic_version"
# Placer's alembic history (db/alembic_placer), as far as this module touches it
_version = sa.Table(VERSION_TABLE, sa.MetaData(), sa.Column("version_num", sa.String(32),
                                                           primary_key=True))
CHUNK = 500  # trees per statement
BIG = 2**63 - 1  # the largest free amount stored
ID_BITS = 31  # provider ids are 32-bit signed integers


def walk_key(term: int, root_id: int) -> int:
    """A tree's place in an order's index: by term, then root id."""
    return (term << ID_BITS) | root_id


def split_key(key: int) -> tuple[int, int]:
    """(term, root id) of a walk key."""
    return key >> ID_BITS, key & ((1 << ID_BITS) - 1)


def touching(conn: Connection) -> bool:
    """Whether this write keeps the scores of the trees it changes (only
    while an order that reads them is configured: ``Database``)."""
    return "placer_touched" in conn.get_execution_options()


def touch(conn: Connection, *root_ids: int | None) -> None:
    """Note trees whose scores this write changes (refreshed before commit;
    a write that does not keep them leaves them stale)."""
    touched = conn.get_execution_options().get("placer_touched")
    if touched is not None:
        touched.update(r for r in root_ids if r is not None)


def present(conn: Connection) -> bool:
    """Whether the score tables exist (placement-manage scores drop removes them)."""
    inspector = sa.inspect(conn)
    return all(inspector.has_table(table.name) for table in TABLES)


def refresh(conn: Connection, root_ids: Iterable[int]) -> None:
    """Recompute the rows of these trees (a tree gone, or moved under
    another root, loses its rows). One read, then rows written over their
    old values; deletes only where a tree or one of its classes went."""
    for chunk in _chunks(sorted(set(root_ids)), CHUNK):
        scores, versions, before = _compute(conn, _AMONG, {"roots": chunk})
        now = {v["root_id"]: v["classes"] for v in versions}
        gone = [r for r in chunk if r not in now]
        changed = [r for r, ids in now.items() if r in before and before[r] != ids]
        if gone or changed:
            conn.execute(_DELETE[scores_t], {"roots": gone + changed})
        if gone:
            conn.execute(_DELETE[versions_t], {"roots": gone})
        _insert(conn, scores, versions, replace=True)


def rebuild(conn: Connection) -> int:
    """Recompute every tree's rows; returns the number of trees."""
    conn.execute(scores_t.delete())
    conn.execute(versions_t.delete())
    trees = 0
    roots = list(conn.execute(sa.select(rp_t.c.id).where(rp_t.c.parent_provider_id.is_(None))
                              .order_by(rp_t.c.id)).scalars())
    for chunk in _chunks(roots, CHUNK * 10):
        scores, versions, _ = _compute(conn, _BETWEEN, {"low": chunk[0], "high": chunk[-1]})
        _insert(conn, scores, versions)
        trees += len(versions)
    return trees


def make_exact(conn: Connection) -> int:
    """Rebuild every tree's scores if any is stale; the number of trees
    rebuilt (0: they were exact). The first statement locks the migration
    row of Placer's tables, so that workers starting together rebuild
    once: the others wait, then find the scores exact."""
    conn.execute(_version.update().values(version_num=_version.c.version_num))
    if not stale(conn):
        return 0
    return rebuild(conn)


def stale(conn: Connection) -> int:
    """How many trees' scores do not match their providers (missing, gone
    or changed since they were computed)."""
    current = _signatures().where(rp_t.c.root_provider_id.is_not(None)).subquery()
    root_id, providers, generations, ids, in_use = current.c
    changed = conn.execute(
        sa.select(sa.func.count()).select_from(
            current.outerjoin(versions_t, versions_t.c.root_id == root_id))
        .where(sa.or_(versions_t.c.root_id.is_(None),
                      versions_t.c.providers != providers,
                      versions_t.c.generations != generations,
                      versions_t.c.ids != ids,
                      versions_t.c.used != sa.func.coalesce(in_use, 0)))).scalar_one()
    gone = conn.execute(
        sa.select(sa.func.count()).select_from(versions_t).where(~sa.exists(
            sa.select(1).where(rp_t.c.root_provider_id == versions_t.c.root_id)))).scalar_one()
    return changed + gone


def drop(conn: Connection) -> None:
    """Remove the score tables and their migration history."""
    for table in (*TABLES, _version):
        table.drop(conn, checkfirst=True)


def _signatures() -> sa.Select[*tuple[Any, ...]]:
    """Per tree: providers, sums of their generations and ids, and of their
    allocations of classes they hold (the version row's columns, in order)."""
    p, i = rp_t.alias("p"), inv_t.alias("i")
    in_use = (sa.select(sa.func.sum(alloc_t.c.used))
              .select_from(alloc_t.join(p, p.c.id == alloc_t.c.resource_provider_id)
                           .join(i, sa.and_(i.c.resource_provider_id == p.c.id,
                                            i.c.resource_class_id == alloc_t.c.resource_class_id)))
              .where(p.c.root_provider_id == rp_t.c.root_provider_id).scalar_subquery())
    return (sa.select(rp_t.c.root_provider_id, sa.func.count(),
                      sa.func.sum(rp_t.c.generation), sa.func.sum(rp_t.c.id), in_use)
            .group_by(rp_t.c.root_provider_id))


def _providers(trees: sa.ColumnElement[bool]) -> sa.Select[*tuple[Any, ...]]:
    """Per provider of the trees and inventory it holds (one row with
    None's for a provider without any): root, id, generation, class,
    total, reserved, ratio, used, and the tree's score rows as stored."""
    joined, used = room.joined_use(
        rp_t.outerjoin(inv_t, inv_t.c.resource_provider_id == rp_t.c.id), inv_t,
        alloc_t.c.resource_provider_id.in_(sa.select(rp_t.c.id).where(trees)))
    return (sa.select(rp_t.c.root_provider_id, rp_t.c.id, rp_t.c.generation,
                      inv_t.c.resource_class_id, inv_t.c.total, inv_t.c.reserved,
                      inv_t.c.allocation_ratio, used, versions_t.c.classes)
            .select_from(joined.outerjoin(versions_t,
                                          versions_t.c.root_id == rp_t.c.root_provider_id))
            .where(trees))


# Statements built once (every write refreshes its trees, and building them
# cost more than running them): the trees of a list of roots, or of a range
# of root ids.
_AMONG, _BETWEEN = (_providers(trees) for trees in (
    rp_t.c.root_provider_id.in_(sa.bindparam("roots", expanding=True)),
    rp_t.c.root_provider_id.between(sa.bindparam("low"), sa.bindparam("high"))))


def _compute(conn: Connection, query: sa.Select[*tuple[Any, ...]], params: dict[str, Any]
             ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[int, str]]:
    """(score rows, version rows, root -> its score rows as stored) of the
    trees the query selects, in one read."""
    holdings: dict[int, list[tuple[int, int, int]]] = {}  # root -> (class, capacity, used)
    trees: dict[int, list[int]] = {}  # root -> [providers, generations, ids, used]
    before: dict[int, str] = {}
    seen: set[int] = set()
    for root, rp, generation, rc, total, reserved, ratio, in_use, stored in conn.execute(
            query, params).all():
        if stored is not None:
            before[root] = stored
        tree = trees.get(root)
        if tree is None:
            tree = trees[root] = [0, 0, 0, 0]
            holdings[root] = []
        if rp not in seen:
            seen.add(rp)
            tree[0] += 1
            tree[1] += generation
            tree[2] += rp
        if rc is None:
            continue
        in_use = int(in_use or 0)
        tree[3] += in_use
        holdings[root].append((rc, capacity(total, reserved, ratio), in_use))
    scores: list[dict[str, Any]] = []
    held: dict[int, list[int]] = {}
    for root in sorted(holdings):
        per_class = tree_scores(holdings[root])
        held[root] = sorted(per_class)
        for rc in held[root]:
            free, largest = per_class[rc]
            scores.append({"root_id": root, "resource_class_id": rc, "free": free,
                           "largest": min(largest, BIG), "pack_key": walk_key(free, root),
                           "spread_key": walk_key(FULL - free, root)})
    versions = [{"root_id": root, "providers": n, "generations": gens, "ids": ids, "used": used,
                 "classes": _ints(held[root])}
                for root, (n, gens, ids, used) in sorted(trees.items())]
    return scores, versions, before


# Statements built once: a claim refreshes its trees (SQLAlchemy's work
# per statement cost more than the database's for these few rows).
_DELETE = {table: table.delete().where(table.c.root_id.in_(sa.bindparam("roots",
                                                                        expanding=True)))
           for table in TABLES}


@functools.cache
def _upsert(dialect: str, table: sa.Table) -> sa.Insert:
    """INSERT of ``table``'s rows over those with the same key."""
    keys = {c.name for c in table.primary_key.columns}
    if dialect == "mysql":
        insert = mysql.insert(table)
        return insert.on_duplicate_key_update(
            {c.name: insert.inserted[c.name] for c in table.columns if c.name not in keys})
    upsert = _INSERTS[dialect](table)
    return upsert.on_conflict_do_update(
        index_elements=sorted(keys),
        set_={c.name: upsert.excluded[c.name] for c in table.columns if c.name not in keys})


_INSERTS: dict[str, Callable[[sa.Table], postgresql.Insert | sqlite.Insert]] = {
    "postgresql": postgresql.insert, "sqlite": sqlite.insert}  # MySQL's: above


def _insert(conn: Connection, scores: list[dict[str, Any]], versions: list[dict[str, Any]],
            replace: bool = False) -> None:
    """Insert the rows (``replace``: over those with the same key), as
    multi-row inserts (SQLAlchemy's insertmanyvalues, or the driver's)."""
    for table, rows in ((scores_t, scores), (versions_t, versions)):
        if rows:
            statement = _upsert(conn.dialect.name, table) if replace else table.insert()
            conn.execute(statement, rows)


def _ints(ids: list[int]) -> str:
    return ",".join(str(int(i)) for i in ids)


def _chunks(items: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
