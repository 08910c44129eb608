"""Whole provider trees as the candidate engine reads them: every provider
of some trees with its inventories, usages, traits and aggregates, in a
fixed number of queries whatever the number of trees.

A provider's inventories and traits change rarely, and every write of them
bumps its generation, which the providers' query reads fresh on each
request: ``Records`` keeps them per process, keyed by what identifies that
state, so only the usages (and aggregates, which a write before 1.19
changes without a bump) are read each time."""

import collections
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.candidates.snapshot import Inventory, Provider
from placer.db.engine import json_arrays, json_rows, plain_rows

# The tree loader's queries, as the driver takes them (each ends in the
# column that where_in tests): with thousands of ids inlined each statement is
# new to SQLAlchemy's compiled cache, and compiling it would cost more than
# running it.
_LOAD = {
    "providers": "SELECT id, uuid, name, generation, parent_provider_id, root_provider_id"
                 " FROM resource_providers WHERE root_provider_id",
    # SQLite may give a deleted provider's id to the next one (no
    # AUTOINCREMENT): its creation time tells the two apart
    "providers_sqlite": "SELECT id, uuid, name, generation, parent_provider_id,"
                        " root_provider_id, created_at FROM resource_providers"
                        " WHERE root_provider_id",
    "inventories": "SELECT resource_provider_id, resource_class_id, total, reserved,"
                   " min_unit, max_unit, step_size, allocation_ratio"
                   " FROM inventories WHERE resource_provider_id",
    "usages": "SELECT resource_provider_id, resource_class_id, SUM(used) AS used"
              " FROM allocations WHERE resource_provider_id",
    "traits": "SELECT l.resource_provider_id, t.name FROM resource_provider_traits l"
              " JOIN traits t ON t.id = l.trait_id WHERE l.resource_provider_id",
    "aggregates": "SELECT l.resource_provider_id, a.uuid FROM resource_provider_aggregates l"
                  " JOIN placement_aggregates a ON a.id = l.aggregate_id"
                  " WHERE l.resource_provider_id",
}


# The columns of the queries read as one JSON array on MySQL (engine.json_rows):
# not the inventories, whose FLOAT ratio JSON would widen.
_JSON_COLUMNS = {
    "providers": "id, uuid, name, generation, parent_provider_id, root_provider_id",
    "usages": "resource_provider_id, resource_class_id, used",
    "traits": "resource_provider_id, name",
    "aggregates": "resource_provider_id, uuid",
}


def where_in(conn: Connection, sql: str, ids: Iterable[int],
             then: str = "") -> sa.CursorResult[*tuple[Any, ...]]:
    """Run ``sql``, which ends in a column, with ``IN`` the ids appended
    (and ``then``, such as a GROUP BY).

    The ids are written as integer literals (no bound parameter per id),
    except on SQLite: there they are one JSON parameter, so that the
    statement's text is the same whatever the ids. Python's sqlite3 keeps
    every distinct statement it prepared (128 per connection), each holding
    about 100 bytes per literal id: a worker kept tens of MiB of them after
    a few large answers."""
    ids = sorted(set(map(int, ids)))
    if conn.dialect.name == "sqlite":
        return conn.exec_driver_sql(f"{sql} IN (SELECT value FROM json_each(?)){then}",
                                    (orjson.dumps(ids).decode(),))
    return conn.exec_driver_sql(_in_literals(sql, ids, then))


def _in_literals(sql: str, ids: Sequence[int], then: str = "") -> str:
    return f"{sql} IN ({','.join(map(str, ids))}){then}"


def _load(conn: Connection, query: str, ids: Iterable[int],
          then: str = "") -> Sequence[Sequence[Any]]:
    ids = sorted(set(map(int, ids)))
    if query in _JSON_COLUMNS and json_arrays(conn.dialect):
        found = json_rows(conn, _in_literals(_LOAD[query], ids, then), _JSON_COLUMNS[query])
        if found is not None:
            return found
    return plain_rows(where_in(conn, _LOAD[query], ids, then))


# A provider's records: (its key, inventories by class id, traits).
_Entry = tuple[tuple[Any, ...], dict[int, Inventory], frozenset[str]]


class Records:
    """Providers' inventories and traits, kept by one process across
    requests, each under the key (id, uuid, generation, and on SQLite the
    creation time) it was read at: a later request takes it only if the
    providers' fresh read gives the same key. Read in a later statement
    than that key, a record is at least as new as it, and generations only
    grow, so nothing older than the key ever answers.

    Equal inventories and trait sets are kept once (hosts of one kind of
    hardware share them): from about 300 bytes a provider to 1.6 KiB. At most ``size``
    providers are kept; past that it starts again empty."""

    def __init__(self, size: int = 100_000):
        self.size = size
        self._entries: dict[int, _Entry] = {}
        self._shared: dict[Any, Any] = {}  # one copy of each equal value
        self._lock = threading.Lock()  # gthread workers share it

    def get(self, key: tuple[Any, ...]) -> _Entry | None:
        entry = self._entries.get(key[0])
        return entry if entry is not None and entry[0] == key else None

    def put(self, entries: list[_Entry]) -> None:
        with self._lock:
            if len(self._entries) + len(entries) > self.size:
                self._entries, self._shared = {}, {}
            shared = self._shared
            for key, inventories, traits in entries[:self.size]:
                items = tuple(sorted(inventories.items()))
                self._entries[key[0]] = (key, shared.setdefault(items, inventories),
                                         shared.setdefault(traits, traits))


def load_trees(conn: Connection, root_ids: list[int],
               class_names: dict[int, str] | None = None,
               aggregates: bool = True, records: Records | None = None) -> list[Provider]:
    """Every provider of the trees of ``root_ids``, with its inventories,
    usages, traits and aggregates (or none, where the caller has no use for
    them): five queries at most, whatever the number (``class_names``,
    id -> name, saves a sixth). With ``records``, the inventories and
    traits of the providers it holds unchanged are not read."""
    if not root_ids:
        return []
    sqlite = conn.dialect.name == "sqlite"
    rows = _load(conn, "providers_sqlite" if sqlite else "providers", root_ids)
    if not rows:
        return []
    names = class_names or all_class_names(conn)
    keys = [(r[0], r[1], r[3], r[6]) if sqlite else (r[0], r[1], r[3]) for r in rows]
    kept: list[_Entry | None] = ([records.get(key) for key in keys] if records is not None
                                 else [None] * len(keys))
    missing = {key[0]: key for key, entry in zip(keys, kept, strict=True) if entry is None}
    read = _read_records(conn, missing) if missing else {}
    if records is not None and read:
        records.put(list(read.values()))
    found = [entry if entry is not None else read[key[0]]
             for key, entry in zip(keys, kept, strict=True)]
    ids = [r[0] for r in rows]
    usages: dict[int, dict[str, int]] = collections.defaultdict(dict)
    for rp, rc, used in _load(conn, "usages", ids, " GROUP BY resource_provider_id,"
                              " resource_class_id"):
        usages[rp][names[rc]] = int(used)
    links = _linked(_load(conn, "aggregates", ids)) if aggregates else {}
    empty: frozenset[str] = frozenset()
    return [
        Provider(r[0], r[1], r[2], r[4], r[5], r[3] or 0, entry[2], links.get(r[0], empty),
                 {names[rc]: inv for rc, inv in entry[1].items()}, usages[r[0]])
        for r, entry in zip(rows, found, strict=True)]


def _read_records(conn: Connection, keys: dict[int, tuple[Any, ...]]) -> dict[int, _Entry]:
    """The inventories and traits of these providers (id -> key), read now."""
    inventories: dict[int, dict[int, Inventory]] = collections.defaultdict(dict)
    for rp, rc, total, reserved, min_unit, max_unit, step, ratio in _load(
            conn, "inventories", keys):
        inventories[rp][rc] = Inventory(total, reserved, min_unit, max_unit, step, ratio)
    traits = _linked(_load(conn, "traits", keys))
    empty: frozenset[str] = frozenset()
    return {rp: (key, inventories.get(rp, {}), traits.get(rp, empty))
            for rp, key in keys.items()}


def all_class_names(conn: Connection) -> dict[int, str]:
    return dict(conn.exec_driver_sql("SELECT id, name FROM resource_classes").all())


def _linked(rows: Iterable[Sequence[Any]]) -> dict[int, frozenset[str]]:
    """provider id -> the values (trait names, aggregate uuids) of its rows."""
    result: dict[int, set[str]] = collections.defaultdict(set)
    for rp, item in rows:
        result[rp].add(item)
    return {rp: frozenset(items) for rp, items in result.items()}
