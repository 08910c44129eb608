"""Rows for tests, written straight to the tables (no API round trips): the
one provider factory, and the traits, aggregates, inventories and
allocations of providers that exist."""

import uuid as uuidlib

import sqlalchemy as sa

from placer.db import tables as t

MAX_INT = 2147483647
DEFAULT_INVENTORY = {"reserved": 0, "min_unit": 1, "step_size": 1, "allocation_ratio": 1.0}


def _ids(conn, table, names):
    rows = conn.execute(sa.select(table.c.name, table.c.id).where(table.c.name.in_(names)))
    return {name: id_ for name, id_ in rows}


def rp_id(conn, uuid: str) -> int:
    return conn.execute(sa.select(t.resource_providers.c.id)
                        .where(t.resource_providers.c.uuid == uuid)).scalar_one()


def _class_id(conn, name: str) -> int:
    return conn.execute(sa.select(t.resource_classes.c.id)
                        .where(t.resource_classes.c.name == name)).scalar_one()


def _put_traits(conn, provider_id: int, names) -> None:
    missing = set(names) - set(_ids(conn, t.traits, list(names)))
    if missing:
        conn.execute(t.traits.insert(), [{"name": n} for n in sorted(missing)])
    conn.execute(t.resource_provider_traits.insert(), [
        {"resource_provider_id": provider_id, "trait_id": i}
        for i in _ids(conn, t.traits, list(names)).values()])


def _put_aggregates(conn, provider_id: int | None, aggs) -> None:
    for agg in aggs:
        agg_id = conn.execute(sa.select(t.placement_aggregates.c.id)
                              .where(t.placement_aggregates.c.uuid == agg)).scalar()
        if agg_id is None:
            agg_id = conn.execute(t.placement_aggregates.insert().values(uuid=agg)
                                  ).inserted_primary_key[0]
        if provider_id is not None:
            conn.execute(t.resource_provider_aggregates.insert().values(
                resource_provider_id=provider_id, aggregate_id=agg_id))


def provider(db, name: str | None = None, *, uuid: str | None = None, parent: str | None = None,
             inventory: dict | None = None, traits=(), aggregates=(), generation: int = 0) -> str:
    """Create a provider; ``inventory`` maps class -> total or -> dict of fields
    (``max_unit`` defaults to the total)."""
    uuid = uuid or str(uuidlib.uuid4())
    name = name or f"rp-{uuid[:8]}"

    def write(conn):
        parent_id = root_id = None
        if parent:
            row = conn.execute(sa.select(t.resource_providers.c.id,
                                         t.resource_providers.c.root_provider_id)
                               .where(t.resource_providers.c.uuid == parent)).one()
            parent_id, root_id = row.id, row.root_provider_id
        new_id = conn.execute(t.resource_providers.insert().values(
            uuid=uuid, name=name, generation=generation, parent_provider_id=parent_id,
            root_provider_id=root_id)).inserted_primary_key[0]
        if root_id is None:
            conn.execute(t.resource_providers.update().where(t.resource_providers.c.id == new_id)
                         .values(root_provider_id=new_id))
        if inventory:
            rc_ids = _ids(conn, t.resource_classes, list(inventory))
            rows = []
            for rc, spec in inventory.items():
                fields = spec if isinstance(spec, dict) else {"total": spec}
                row = {**DEFAULT_INVENTORY, "max_unit": fields["total"], **fields}
                rows.append({"resource_provider_id": new_id, "resource_class_id": rc_ids[rc],
                             **row})
            conn.execute(t.inventories.insert(), rows)
        if traits:
            _put_traits(conn, new_id, traits)
        _put_aggregates(conn, new_id, aggregates)

    db.write(write)
    return uuid


def _bump(conn, uuid: str) -> None:
    """The provider's generation up by one, as the API's writes of its
    inventories and traits do (the candidate reads' kept records rely on it)."""
    rp = t.resource_providers
    conn.execute(rp.update().where(rp.c.uuid == uuid).values(generation=rp.c.generation + 1))


def traits(db, uuid: str, *names: str) -> None:
    """Give an existing provider these traits (created if unknown)."""
    def write(conn):
        _put_traits(conn, rp_id(conn, uuid), names)
        _bump(conn, uuid)

    db.write(write)


def trait_row(db, name: str) -> None:
    """A trait row of its own (a custom trait no provider has)."""
    db.write(lambda conn: conn.execute(t.traits.insert().values(name=name)))


def aggregates(db, uuid: str | None, *aggs: str) -> None:
    """Put an existing provider in these aggregates; with no provider, only
    the aggregates' rows."""
    db.write(lambda conn: _put_aggregates(conn, rp_id(conn, uuid) if uuid else None, aggs))


def inventory(db, uuid: str, rc: str, total: int, **fields) -> None:
    """An inventory row for an existing provider (``max_unit`` defaults to the
    largest the API allows)."""
    row = {**DEFAULT_INVENTORY, "max_unit": MAX_INT, **fields}

    def write(conn):
        conn.execute(t.inventories.insert().values(
            resource_provider_id=rp_id(conn, uuid), resource_class_id=_class_id(conn, rc),
            total=total, **row))
        _bump(conn, uuid)

    db.write(write)


def allocation(db, provider: str, rc: str, used: int, consumer: str | None = None) -> None:
    """An allocation row, as the allocations API would write it."""
    db.write(lambda conn: conn.execute(t.allocations.insert().values(
        resource_provider_id=rp_id(conn, provider), resource_class_id=_class_id(conn, rc),
        used=used, consumer_id=consumer or str(uuidlib.uuid4()))))


def generation(db, uuid: str) -> int:
    return db.read(lambda c: c.execute(sa.select(t.resource_providers.c.generation)
                                       .where(t.resource_providers.c.uuid == uuid)).scalar_one())
