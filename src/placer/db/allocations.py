"""Allocations: reading them, and replacing consumers' allocations atomically.

A write runs in one transaction: consumers are checked (generation) and
created, the consumers' old rows are removed, capacity is checked against the
usage that remains, new rows go in, and every touched provider's generation is
compare-and-set from the value read in the same statement as the usage (so
no claim can have committed between them unseen). A provider whose
generation moved meanwhile, or a consumer's project or user row deleted
meanwhile (db/consumers.py), makes the whole transaction retry (both are
``WriteRaced``, which the handlers retry with ``Database.write_retrying``); a
consumer generation mismatch goes back to the client.
"""

import collections
import dataclasses
import datetime
import functools
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer import exceptions
from placer.db import consumers as consumers_db
from placer.db import resource_providers as rp_db
from placer.db import room, scores
from placer.db.engine import bump_generations, generation_parameters
from placer.db.resource_providers import PROVIDER_CHANGED
from placer.db.tables import allocations, consumer_types, consumers, inventories, projects, users
from placer.db.tables import resource_classes as rc_t
from placer.db.tables import resource_providers as rp_t
from placer.model.inventory import amount_within_units, capacity


class WriteRaced(exceptions.ConcurrentUpdate):
    """Another transaction changed what this write read: not the client's
    fault, so the caller runs the whole write again."""


class ProviderGenerationConflict(WriteRaced):
    """A provider changed under us: the caller retries the whole write."""

    def __init__(self) -> None:
        super().__init__(PROVIDER_CHANGED)


class OwnerGone(WriteRaced):
    """The project or user row a consumer was to point at was deleted
    meanwhile (it was unused: placement-manage audit --fix): the caller
    retries the whole write, which creates it again."""


class UnknownResourceClass(exceptions.NotFound):
    pass


@dataclasses.dataclass
class ConsumerWrite:
    """What one consumer's allocations must become (empty: none at all)."""

    uuid: str
    allocations: dict[str, dict[str, int]]  # provider uuid -> class -> amount
    project_id: str
    user_id: str
    generation: int | None = None
    consumer_type: str | None = None


@dataclasses.dataclass
class WriteRules:
    check_generation: bool  # 1.28+: the client's consumer_generation must match


@dataclasses.dataclass
class ConsumerAllocations:
    uuid: str
    by_provider: dict[str, dict[str, Any]]  # provider uuid -> {"generation", "resources"}
    project_id: str | None = None
    user_id: str | None = None
    generation: int | None = None
    consumer_type: str | None = None
    last_modified: datetime.datetime | None = None


def for_consumer(conn: Connection, uuid: str) -> ConsumerAllocations:
    rows = conn.execute(
        sa.select(rp_t.c.uuid.label("rp_uuid"), rp_t.c.generation.label("rp_generation"),
                  rc_t.c.name.label("rc"), allocations.c.used, allocations.c.created_at,
                  allocations.c.updated_at, consumers.c.generation,
                  projects.c.external_id.label("project"), users.c.external_id.label("user"),
                  consumer_types.c.name.label("consumer_type"))
        .select_from(
            allocations.join(rp_t, allocations.c.resource_provider_id == rp_t.c.id)
            .join(rc_t, allocations.c.resource_class_id == rc_t.c.id)
            .join(consumers, allocations.c.consumer_id == consumers.c.uuid)
            .join(projects, consumers.c.project_id == projects.c.id)
            .join(users, consumers.c.user_id == users.c.id)
            .outerjoin(consumer_types, consumers.c.consumer_type_id == consumer_types.c.id))
        .where(allocations.c.consumer_id == uuid)
        .order_by(allocations.c.id)).all()
    result = ConsumerAllocations(uuid, {})
    for r in rows:
        entry = result.by_provider.setdefault(r.rp_uuid, {"resources": {}})
        entry["resources"][r.rc] = r.used
        entry["generation"] = r.rp_generation
        stamp = r.updated_at or r.created_at
        if stamp and (result.last_modified is None or stamp > result.last_modified):
            result.last_modified = stamp
    if rows:
        first = rows[0]
        result.project_id, result.user_id = first.project, first.user
        result.generation = first.generation
        result.consumer_type = first.consumer_type or "unknown"
    return result


_OF_PROVIDER = rp_db.of_named_provider(
    sa.select(allocations.c.consumer_id, rc_t.c.name.label("rc"), allocations.c.used,
              allocations.c.created_at, allocations.c.updated_at, consumers.c.generation)
    .select_from(allocations.join(rc_t, allocations.c.resource_class_id == rc_t.c.id)
                 .outerjoin(consumers, allocations.c.consumer_id == consumers.c.uuid))
    .order_by(allocations.c.id), allocations.c.resource_provider_id)


def for_provider(conn: Connection, uuid: str
                 ) -> tuple[int, dict[str, dict[str, Any]], datetime.datetime | None]:
    """(the provider's generation, its allocations by consumer uuid, when
    they last changed)."""
    generation, rows = rp_db.generation_and_rows(
        conn, _OF_PROVIDER, uuid, prefix=f"Resource provider '{uuid}' not found: ")
    by_consumer: dict[str, dict[str, Any]] = {}
    last: datetime.datetime | None = None
    for r in rows:
        entry = by_consumer.setdefault(r.consumer_id, {"resources": {},
                                                       "consumer_generation": r.generation})
        entry["resources"][r.rc] = r.used
        stamp = r.updated_at or r.created_at
        if stamp and (last is None or stamp > last):
            last = stamp
    return generation, by_consumer, last


def delete_for_consumer(conn: Connection, uuid: str) -> None:
    # like the reference, no generation moves: the trees are noted for their scores
    if scores.touching(conn):
        scores.touch(conn, *conn.execute(
            sa.select(rp_t.c.root_provider_id).distinct()
            .join(allocations, allocations.c.resource_provider_id == rp_t.c.id)
            .where(allocations.c.consumer_id == uuid)).scalars())
    result = conn.execute(allocations.delete().where(allocations.c.consumer_id == uuid))
    if result.rowcount == 0:
        raise exceptions.NotFound(f"No allocations for consumer '{uuid}'")
    consumers_db.delete_if_unused(conn, [uuid])


def replace(conn: Connection, writes: list[ConsumerWrite], rules: WriteRules) -> None:
    """Make each consumer's allocations exactly what ``writes`` says.

    In few statements (issue 38): per consumer one read of its owner (locked),
    type and row; one read of the providers written (and those an emptying
    write releases) with their generations, the classes, inventories and
    usage; the old rows deleted (only where there are some), the new ones
    inserted in one statement, and one compare-and-set of the providers'
    generations and one of the consumers'."""
    found: list[tuple[consumers_db.Consumer, int, int, int | None]] = []
    held: list[str] = []  # consumers that may have allocations now
    for w in writes:
        owned = _ensure_consumer(conn, w, rules)
        if owned.consumer is not None:
            found.append((owned.consumer, owned.project, owned.user, owned.type_id))
        if owned.has_allocations:
            held.append(w.uuid)
    wanted = {p for w in writes for p in w.allocations}
    class_names = {rc for w in writes for res in w.allocations.values() for rc in res}
    # As in the reference, the providers written to get a new generation, and
    # so do those an emptying write releases.
    emptied = [w.uuid for w in writes if not w.allocations]
    read = _read(conn, wanted, class_names, held, [u for u in emptied if u in held])
    providers = {u: p for u, p in read.providers.items() if u in wanted}
    for missing in sorted(wanted - providers.keys()):
        raise exceptions.BadRequest(
            f"Allocation for resource provider '{missing}' that does not exist.")
    class_ids = read.classes
    for name in sorted(class_names - class_ids.keys()):
        raise UnknownResourceClass(exceptions.no_such_class(name))

    if held:
        conn.execute(allocations.delete().where(allocations.c.consumer_id.in_(held)))
    _check_capacity(writes, providers, class_ids, read)
    rows = [{"resource_provider_id": rp, "consumer_id": w.uuid, "resource_class_id": rc,
             "used": amount}
            for w in writes for rp, rc, amount in _rows_of(w, providers, class_ids)]
    if rows:
        conn.execute(allocations.insert(), rows)  # one statement, its rows bound
    touched = sorted(read.providers.values(), key=lambda p: p.id)
    if touched:
        result = conn.execute(bump_generations(rp_t, len(touched)),
                              generation_parameters((p.id, p.generation) for p in touched))
        if result.rowcount != len(touched):
            raise ProviderGenerationConflict()
        scores.touch(conn, *(p.root_id for p in touched))
    consumers_db.increment_generations(conn, found)
    consumers_db.delete_if_unused(conn, emptied)


def _rows_of(write: ConsumerWrite, providers: dict[str, "_Provider"],
             class_ids: dict[str, int]) -> Iterator[tuple[int, int, int]]:
    for p, res in write.allocations.items():
        for rc, amount in res.items():
            yield providers[p].id, class_ids[rc], amount


def _ensure_consumer(conn: Connection, write: ConsumerWrite,
                     rules: WriteRules) -> consumers_db.Owned:
    """The consumer's owner (locked), type and row; a new consumer is
    inserted, already at generation 1 (``Owned.consumer`` None: this write
    created it, nothing to compare-and-set)."""
    owned = consumers_db.read_for_write(conn, write.project_id, write.user_id,
                                        write.consumer_type, write.uuid)
    if owned is None:
        raise OwnerGone()
    consumer = owned.consumer
    if consumer is None:
        if rules.check_generation and write.generation is not None:
            raise exceptions.Conflict(
                f"consumer generation conflict - expected null but got {write.generation}",
                exceptions.CONCURRENT_UPDATE)
        if consumers_db.insert_new(conn, write.uuid, owned.project, owned.user,
                                   owned.type_id):
            return owned
        # a concurrent write created it first: the client's null is stale
        consumer = consumers_db.find(conn, write.uuid)
        assert consumer is not None
        if rules.check_generation:
            raise exceptions.Conflict(
                f"consumer generation conflict - expected {consumer.generation} but got None",
                exceptions.CONCURRENT_UPDATE)
        return dataclasses.replace(owned, consumer=consumer, has_allocations=True)
    if rules.check_generation and consumer.generation != write.generation:
        got = "None" if write.generation is None else write.generation
        raise exceptions.Conflict(
            f"consumer generation conflict - expected {consumer.generation} but got {got}",
            exceptions.CONCURRENT_UPDATE)
    return owned


@dataclasses.dataclass(frozen=True)
class _Provider:
    id: int
    uuid: str
    generation: int
    root_id: int


@dataclasses.dataclass
class _Read:
    """What a write reads in one statement: providers by uuid, classes by
    name, and per (provider id, class id) the inventory row, what all
    allocations use and what the written consumers' old rows use."""

    providers: dict[str, _Provider]
    classes: dict[str, int]
    inventory: dict[tuple[int, int], Any]
    used: dict[tuple[int, int], int]
    ours: dict[tuple[int, int], int]


@functools.cache
def _read_statement(wanted: bool, emptied: bool, classes: bool, held: bool) -> sa.Select[Any]:
    """``_read``'s statement for one shape of write, built once (expanding
    bind parameters: wanted, emptied, classes, held)."""
    inv, a = inventories, allocations
    which = []
    if wanted:
        which.append(rp_t.c.uuid.in_(sa.bindparam("wanted", expanding=True)))
    if emptied:
        which.append(rp_t.c.id.in_(
            sa.select(a.c.resource_provider_id)
            .where(a.c.consumer_id.in_(sa.bindparam("emptied", expanding=True)))))
    columns: list[Any] = [rp_t.c.id, rp_t.c.uuid, rp_t.c.generation, rp_t.c.root_provider_id]
    source: sa.FromClause = rp_t
    if classes:
        ours = (sa.select(sa.func.coalesce(sa.func.sum(a.c.used), 0))
                .where(a.c.resource_provider_id == inv.c.resource_provider_id,
                       a.c.resource_class_id == inv.c.resource_class_id,
                       a.c.consumer_id.in_(sa.bindparam("held", expanding=True)))
                .scalar_subquery() if held else sa.literal(0))
        columns += [rc_t.c.id.label("rc_id"), rc_t.c.name.label("rc"), inv.c.total,
                    inv.c.reserved, inv.c.min_unit, inv.c.max_unit, inv.c.step_size,
                    inv.c.allocation_ratio, room.used_of(inv).label("used"),
                    ours.label("ours")]
        source = (rp_t.outerjoin(rc_t, rc_t.c.name.in_(sa.bindparam("classes", expanding=True)))
                  .outerjoin(inv, sa.and_(inv.c.resource_provider_id == rp_t.c.id,
                                          inv.c.resource_class_id == rc_t.c.id)))
    return sa.select(*columns).select_from(source).where(sa.or_(*which))


def _read(conn: Connection, wanted: set[str], class_names: set[str], held: list[str],
          emptied: list[str]) -> _Read:
    """The providers written (``wanted``) and those whose allocations the
    ``emptied`` consumers release, with their generations, each joined to
    the named classes and its inventory of them, with the usage: read in one
    statement, generations in the same snapshot as usage."""
    result = _Read({}, {}, {}, {}, {})
    if not wanted and not emptied:
        return result
    stmt = _read_statement(bool(wanted), bool(emptied), bool(class_names), bool(held))
    for r in conn.execute(stmt, {"wanted": sorted(wanted), "emptied": emptied,
                                 "classes": sorted(class_names), "held": held}):
        result.providers[r.uuid] = _Provider(r.id, r.uuid, r.generation or 0,
                                             r.root_provider_id)
        if not class_names or r.rc_id is None:
            continue
        result.classes[r.rc] = r.rc_id
        if r.total is not None:
            key = (r.id, r.rc_id)
            result.inventory[key] = r
            result.used[key] = int(r.used or 0)
            result.ours[key] = int(r.ours or 0)
    return result


def _check_capacity(writes: list[ConsumerWrite], providers: dict[str, _Provider],
                    class_ids: dict[str, int], read: _Read) -> None:
    """The reference's rules and messages: inventory must exist, each amount
    respect min_unit/max_unit/step_size, and the sum fit the capacity (a write
    that only reduces an existing overage is let through). The usage that
    remains is what all allocations used less the written consumers' old
    rows (read together, before they were deleted)."""
    names = {v: k for k, v in class_ids.items()}
    wanted: collections.defaultdict[tuple[int, int], int] = collections.defaultdict(int)
    for w in writes:
        for rp, rc, amount in _rows_of(w, providers, class_ids):
            wanted[(rp, rc)] += amount
    if not wanted:
        return
    rp_ids = {rp for rp, _ in wanted}
    rc_ids = {rc for _, rc in wanted}
    inv = read.inventory
    by_id = {p.id: p for p in providers.values()}
    without_inventory = sorted(by_id[rp].uuid for rp in rp_ids
                               if not any(k[0] == rp for k in inv))
    if without_inventory:
        raise InvalidInventory(
            f"Inventory for '{', '.join(sorted(names[rc] for rc in rc_ids))}' on resource "
            f"provider '{', '.join(without_inventory)}' invalid.")
    for w in writes:
        for rp, rc, amount in _rows_of(w, providers, class_ids):
            where = f"'{names[rc]}' on resource provider '{by_id[rp].uuid}'"
            row = inv.get((rp, rc))
            if row is None:
                raise InvalidInventory(f"Inventory for {where} invalid.")
            if not amount_within_units(row, amount):
                raise InvalidInventory(f"Unable to create allocation for {where}. The "
                                       "requested amount would violate inventory constraints.")
            before = read.used.get((rp, rc), 0)
            used = before - read.ours.get((rp, rc), 0)
            room = capacity(row.total, row.reserved, row.allocation_ratio)
            needed_all = used + wanted[(rp, rc)]
            if room < used + amount or room < needed_all:
                if before == 0 or needed_all > before:
                    raise InvalidInventory(f"Unable to create allocation for {where}. The "
                                           "requested amount would exceed the capacity.")


class InvalidInventory(exceptions.Conflict):
    """Capacity or constraint violation; the handler adds its prefix."""
