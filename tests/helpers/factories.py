"""Rows for tests, written straight to the tables (no API round trips)."""

import uuid as uuidlib

import sqlalchemy as sa

from placer.db import tables as t

DEFAULT_INVENTORY = {"reserved": 0, "min_unit": 1, "step_size": 1, "allocation_ratio": 1.0}


def _ids(conn, table, names):
    rows = conn.execute(sa.select(table.c.name, table.c.id).where(table.c.name.in_(names)))
    return {name: id_ for name, id_ in rows}


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
        rp_id = conn.execute(t.resource_providers.insert().values(
            uuid=uuid, name=name, generation=generation, parent_provider_id=parent_id,
            root_provider_id=root_id)).inserted_primary_key[0]
        if root_id is None:
            conn.execute(t.resource_providers.update().where(t.resource_providers.c.id == rp_id)
                         .values(root_provider_id=rp_id))
        if inventory:
            rc_ids = _ids(conn, t.resource_classes, list(inventory))
            rows = []
            for rc, spec in inventory.items():
                fields = spec if isinstance(spec, dict) else {"total": spec}
                row = {**DEFAULT_INVENTORY, "max_unit": fields["total"], **fields}
                rows.append({"resource_provider_id": rp_id, "resource_class_id": rc_ids[rc],
                             **row})
            conn.execute(t.inventories.insert(), rows)
        if traits:
            missing = set(traits) - set(_ids(conn, t.traits, list(traits)))
            if missing:
                conn.execute(t.traits.insert(), [{"name": n} for n in sorted(missing)])
            trait_ids = _ids(conn, t.traits, list(traits))
            conn.execute(t.resource_provider_traits.insert(), [
                {"resource_provider_id": rp_id, "trait_id": i} for i in trait_ids.values()])
        for agg in aggregates:
            agg_id = conn.execute(sa.select(t.placement_aggregates.c.id)
                                  .where(t.placement_aggregates.c.uuid == agg)).scalar()
            if agg_id is None:
                agg_id = conn.execute(t.placement_aggregates.insert().values(uuid=agg)
                                      ).inserted_primary_key[0]
            conn.execute(t.resource_provider_aggregates.insert().values(
                resource_provider_id=rp_id, aggregate_id=agg_id))

    db.write(write)
    return uuid


def allocation(db, provider: str, rc: str, used: int, consumer: str | None = None) -> None:
    """An allocation row, as the allocations API would write it."""
    def write(conn):
        rp_id = conn.execute(sa.select(t.resource_providers.c.id)
                             .where(t.resource_providers.c.uuid == provider)).scalar_one()
        rc_id = conn.execute(sa.select(t.resource_classes.c.id)
                             .where(t.resource_classes.c.name == rc)).scalar_one()
        conn.execute(t.allocations.insert().values(
            resource_provider_id=rp_id, resource_class_id=rc_id, used=used,
            consumer_id=consumer or str(uuidlib.uuid4())))
    db.write(write)


def generation(db, uuid: str) -> int:
    return db.read(lambda c: c.execute(sa.select(t.resource_providers.c.generation)
                                       .where(t.resource_providers.c.uuid == uuid)).scalar_one())
