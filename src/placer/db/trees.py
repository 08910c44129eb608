"""Whole provider trees as the candidate engine reads them: every provider
of some trees with its inventories, usages, traits and aggregates, in a
fixed number of queries whatever the number of trees."""

import collections
from collections.abc import Iterable, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.candidates.snapshot import Inventory, Provider
from placer.db.engine import plain_rows

# The tree loader's queries, as the driver takes them (each ends in the
# column that where_in tests): with thousands of ids inlined each statement is
# new to SQLAlchemy's compiled cache, and compiling it would cost more than
# running it.
_LOAD = {
    "providers": "SELECT id, uuid, name, generation, parent_provider_id, root_provider_id"
                 " FROM resource_providers WHERE root_provider_id",
    # each inventory with its usage: one index probe per record, and one
    # row for both instead of a second query and a second pass
    "inventories": "SELECT i.resource_provider_id, i.resource_class_id, i.total, i.reserved,"
                   " i.min_unit, i.max_unit, i.step_size, i.allocation_ratio,"
                   " (SELECT SUM(a.used) FROM allocations a"
                   " WHERE a.resource_provider_id = i.resource_provider_id"
                   " AND a.resource_class_id = i.resource_class_id)"
                   " FROM inventories i WHERE i.resource_provider_id",
    "traits": "SELECT l.resource_provider_id, t.name FROM resource_provider_traits l"
              " JOIN traits t ON t.id = l.trait_id WHERE l.resource_provider_id",
    "aggregates": "SELECT l.resource_provider_id, a.uuid FROM resource_provider_aggregates l"
                  " JOIN placement_aggregates a ON a.id = l.aggregate_id"
                  " WHERE l.resource_provider_id",
}


def where_in(conn: Connection, sql: str, ids: Iterable[int]) -> sa.CursorResult[*tuple[Any, ...]]:
    """Run ``sql``, which ends in a column, with ``IN`` the ids appended.

    The ids are written as integer literals (no bound parameter per id),
    except on SQLite: there they are one JSON parameter, so that the
    statement's text is the same whatever the ids. Python's sqlite3 keeps
    every distinct statement it prepared (128 per connection), each holding
    about 100 bytes per literal id: a worker kept tens of MiB of them after
    a few large answers."""
    ids = sorted(set(map(int, ids)))
    if conn.dialect.name == "sqlite":
        return conn.exec_driver_sql(f"{sql} IN (SELECT value FROM json_each(?))",
                                    (orjson.dumps(ids).decode(),))
    return conn.exec_driver_sql(f"{sql} IN ({','.join(map(str, ids))})")


def _load(conn: Connection, query: str, ids: Iterable[int]) -> Sequence[tuple[Any, ...]]:
    return plain_rows(where_in(conn, _LOAD[query], ids))


def load_trees(conn: Connection, root_ids: list[int],
               class_names: dict[int, str] | None = None,
               aggregates: bool = True) -> list[Provider]:
    """Every provider of the trees of ``root_ids``, with its inventories,
    usages, traits and aggregates (or none, where the caller has no use for
    them): four queries at most, whatever the number (``class_names``,
    id -> name, saves a fifth)."""
    if not root_ids:
        return []
    rows = _load(conn, "providers", root_ids)
    ids = [r[0] for r in rows]
    if not ids:
        return []
    names = class_names or all_class_names(conn)
    inventories: dict[int, dict[str, Inventory]] = collections.defaultdict(dict)
    usages: dict[int, dict[str, int]] = collections.defaultdict(dict)
    for rp, rc, total, reserved, min_unit, max_unit, step, ratio, used in _load(
            conn, "inventories", ids):
        name = names[rc]
        inventories[rp][name] = Inventory(total, reserved, min_unit, max_unit, step, ratio)
        if used is not None:
            usages[rp][name] = int(used)
    traits = _linked(_load(conn, "traits", ids))
    links = _linked(_load(conn, "aggregates", ids)) if aggregates else {}
    empty: frozenset[str] = frozenset()
    return [
        Provider(id_, uuid, name, parent, root, generation or 0, traits.get(id_, empty),
                 links.get(id_, empty), inventories[id_], usages[id_])
        for id_, uuid, name, generation, parent, root in rows]


def all_class_names(conn: Connection) -> dict[int, str]:
    return dict(conn.exec_driver_sql("SELECT id, name FROM resource_classes").all())


def _linked(rows: Iterable[tuple[Any, ...]]) -> dict[int, frozenset[str]]:
    """provider id -> the values (trait names, aggregate uuids) of its rows."""
    result: dict[int, set[str]] = collections.defaultdict(set)
    for rp, item in rows:
        result[rp].add(item)
    return {rp: frozenset(items) for rp, items in result.items()}
