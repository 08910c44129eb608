"""Allocations: reading them, and replacing consumers' allocations atomically.

A write runs in one transaction: consumers are checked (generation) and
created, the consumers' old rows are removed, capacity is checked against the
usage that remains, new rows go in, and every touched provider's generation is
compare-and-set from the value read before usage was read. A provider whose
generation moved meanwhile, or a consumer's project or user row deleted
meanwhile (db/consumers.py), makes the whole transaction retry (both are
``WriteRaced``, which the handlers retry with ``Database.write_retrying``); a
consumer generation mismatch goes back to the client.
"""

import collections
import dataclasses
import datetime
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer import exceptions
from placer.db import consumers as consumers_db
from placer.db import resource_classes, room, scores
from placer.db.resource_providers import (
    PROVIDER_CHANGED,
    PROVIDER_SELECT,
    ProviderRecord,
    from_row,
    increment_generation,
)
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


def for_provider(conn: Connection, provider_id: int
                 ) -> tuple[dict[str, dict[str, Any]], datetime.datetime | None]:
    """(allocations by consumer uuid, last modified) of one provider."""
    rows = conn.execute(
        sa.select(allocations.c.consumer_id, rc_t.c.name.label("rc"), allocations.c.used,
                  allocations.c.created_at, allocations.c.updated_at,
                  consumers.c.generation)
        .select_from(allocations.join(rc_t, allocations.c.resource_class_id == rc_t.c.id)
                     .outerjoin(consumers, allocations.c.consumer_id == consumers.c.uuid))
        .where(allocations.c.resource_provider_id == provider_id)
        .order_by(allocations.c.id)).all()
    by_consumer: dict[str, dict[str, Any]] = {}
    last: datetime.datetime | None = None
    for r in rows:
        entry = by_consumer.setdefault(r.consumer_id, {"resources": {},
                                                       "consumer_generation": r.generation})
        entry["resources"][r.rc] = r.used
        stamp = r.updated_at or r.created_at
        if stamp and (last is None or stamp > last):
            last = stamp
    return by_consumer, last


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
    """Make each consumer's allocations exactly what ``writes`` says."""
    found = [_ensure_consumer(conn, w, rules) for w in writes]
    wanted = {p for w in writes for p in w.allocations}
    providers = _providers(conn, wanted)
    class_names = {rc for w in writes for res in w.allocations.values() for rc in res}
    class_ids = resource_classes.ids_by_name(conn, class_names)
    for name in sorted(class_names - class_ids.keys()):
        raise UnknownResourceClass(exceptions.no_such_class(name))

    # As in the reference, the providers written to get a new generation, and
    # so do those an emptying write releases.
    uuids = [w.uuid for w in writes]
    emptied = [w.uuid for w in writes if not w.allocations]
    held = conn.execute(
        sa.select(rp_t.c.uuid).distinct()
        .select_from(allocations.join(rp_t, allocations.c.resource_provider_id == rp_t.c.id))
        .where(allocations.c.consumer_id.in_(emptied))).scalars().all() if emptied else []
    touched = {**_providers(conn, set(held) - providers.keys()), **providers}

    # Generations were read above, before any usage is read below.
    rows = [(providers[p].id, class_ids[rc], amount)
            for w in writes for p, res in w.allocations.items() for rc, amount in res.items()]
    pairs = {(rp, rc) for rp, rc, _ in rows}
    before = _usage(conn, pairs)
    conn.execute(allocations.delete().where(allocations.c.consumer_id.in_(uuids)))
    _check_capacity(conn, writes, providers, class_ids, before)
    if rows:
        conn.execute(allocations.insert(), [
            {"resource_provider_id": rp, "consumer_id": w.uuid, "resource_class_id": rc,
             "used": amount}
            for w in writes for rp, rc, amount in _rows_of(w, providers, class_ids)])
    for provider in sorted(touched.values(), key=lambda p: p.id):  # fixed order: no deadlock
        try:
            increment_generation(conn, provider)
        except exceptions.ConcurrentUpdate:
            raise ProviderGenerationConflict() from None
    for consumer in found:
        consumers_db.increment_generation(conn, consumer)
    consumers_db.delete_if_unused(conn, emptied)


def _rows_of(write: ConsumerWrite, providers: dict[str, ProviderRecord],
             class_ids: dict[str, int]) -> Iterator[tuple[int, int, int]]:
    for p, res in write.allocations.items():
        for rc, amount in res.items():
            yield providers[p].id, class_ids[rc], amount


def _ensure_consumer(conn: Connection, write: ConsumerWrite,
                     rules: WriteRules) -> consumers_db.Consumer:
    owner = consumers_db.locked_owner(conn, write.project_id, write.user_id)
    if owner is None:
        raise OwnerGone()
    project, user = owner
    type_id = (consumers_db.consumer_type_id(conn, write.consumer_type)
               if write.consumer_type else None)
    consumer = consumers_db.find(conn, write.uuid)
    if consumer is None:
        if rules.check_generation and write.generation is not None:
            raise exceptions.Conflict(
                f"consumer generation conflict - expected null but got {write.generation}",
                exceptions.CONCURRENT_UPDATE)
        consumer = consumers_db.create(conn, write.uuid, project, user, type_id)
        if rules.check_generation and consumer.generation != 0:
            # a concurrent write created it first: the client's null is stale
            raise exceptions.Conflict(
                f"consumer generation conflict - expected {consumer.generation} but got None",
                exceptions.CONCURRENT_UPDATE)
        return consumer
    if rules.check_generation and consumer.generation != write.generation:
        got = "None" if write.generation is None else write.generation
        raise exceptions.Conflict(
            f"consumer generation conflict - expected {consumer.generation} but got {got}",
            exceptions.CONCURRENT_UPDATE)
    consumers_db.update_owner(conn, consumer, project, user, type_id)
    return consumer


def _providers(conn: Connection, uuids: set[str]) -> dict[str, ProviderRecord]:
    if not uuids:
        return {}
    rows = conn.execute(PROVIDER_SELECT.where(rp_t.c.uuid.in_(uuids))).all()
    providers = {r.uuid: from_row(r) for r in rows}
    for missing in sorted(uuids - providers.keys()):
        raise exceptions.BadRequest(
            f"Allocation for resource provider '{missing}' that does not exist.")
    return providers


def _usage(conn: Connection, pairs: set[tuple[int, int]]) -> dict[tuple[int, int], int]:
    if not pairs:
        return {}
    rp_ids = {rp for rp, _ in pairs}
    rc_ids = {rc for _, rc in pairs}
    rows = conn.execute(room.used_per_record(allocations.c.resource_provider_id.in_(rp_ids),
                                             allocations.c.resource_class_id.in_(rc_ids)))
    return {(rp, rc): int(used) for rp, rc, used in rows}


def _check_capacity(conn: Connection, writes: list[ConsumerWrite],
                    providers: dict[str, ProviderRecord], class_ids: dict[str, int],
                    before: dict[tuple[int, int], int]) -> None:
    """The reference's rules and messages: inventory must exist, each amount
    respect min_unit/max_unit/step_size, and the sum fit the capacity (a write
    that only reduces an existing overage is let through)."""
    names = {v: k for k, v in class_ids.items()}
    wanted: collections.defaultdict[tuple[int, int], int] = collections.defaultdict(int)
    for w in writes:
        for rp, rc, amount in _rows_of(w, providers, class_ids):
            wanted[(rp, rc)] += amount
    if not wanted:
        return
    rp_ids = {rp for rp, _ in wanted}
    rc_ids = {rc for _, rc in wanted}
    inv = {(r.resource_provider_id, r.resource_class_id): r for r in conn.execute(
        sa.select(inventories).where(inventories.c.resource_provider_id.in_(rp_ids),
                                     inventories.c.resource_class_id.in_(rc_ids)))}
    remaining = _usage(conn, set(wanted))
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
            used = remaining.get((rp, rc), 0)
            room = capacity(row.total, row.reserved, row.allocation_ratio)
            needed_all = used + wanted[(rp, rc)]
            if room < used + amount or room < needed_all:
                prev = before.get((rp, rc))
                if prev is None or needed_all > prev:
                    raise InvalidInventory(f"Unable to create allocation for {where}. The "
                                           "requested amount would exceed the capacity.")


class InvalidInventory(exceptions.Conflict):
    """Capacity or constraint violation; the handler adds its prefix."""
