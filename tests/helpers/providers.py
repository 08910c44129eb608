"""Providers for the resource provider tests: created over the API, and
their traits, aggregates, inventories and allocations written as rows."""

import uuid as uuidlib

import sqlalchemy as sa

from placer.db import tables as t
from tests.helpers import factories

RPS = "/resource_providers"
U1 = "11111111-1111-1111-1111-111111111111"
U2 = "22222222-2222-2222-2222-222222222222"
MISSING = "99999999-9999-9999-9999-999999999999"


def make(api, name, uuid=None, parent=None, version="1.39") -> str:
    body = {"name": name, "uuid": uuid or str(uuidlib.uuid4())}
    if parent is not None:
        body["parent_provider_uuid"] = parent
    r = api.post(RPS, version=version, json=body)
    assert r.status_code in (200, 201), r.text
    return body["uuid"]


def rp_id(conn, uuid):
    return conn.execute(sa.select(t.resource_providers.c.id)
                        .where(t.resource_providers.c.uuid == uuid)).scalar_one()


def _class_id(conn, name):
    return conn.execute(sa.select(t.resource_classes.c.id)
                        .where(t.resource_classes.c.name == name)).scalar_one()


def add_traits(db, uuid, *names):
    def write(conn):
        rp = rp_id(conn, uuid)
        for name in names:
            trait = conn.execute(sa.select(t.traits.c.id).where(t.traits.c.name == name)).scalar()
            if trait is None:
                trait = conn.execute(t.traits.insert().values(name=name)).inserted_primary_key[0]
            conn.execute(t.resource_provider_traits.insert()
                         .values(trait_id=trait, resource_provider_id=rp))
    db.write(write)


def add_trait_row(db, name):
    db.write(lambda conn: conn.execute(t.traits.insert().values(name=name)))


def add_aggregates(db, uuid, *aggs):
    def write(conn):
        rp = rp_id(conn, uuid) if uuid else None
        for agg in aggs:
            agg_id = conn.execute(sa.select(t.placement_aggregates.c.id)
                                  .where(t.placement_aggregates.c.uuid == agg)).scalar()
            if agg_id is None:
                agg_id = conn.execute(t.placement_aggregates.insert()
                                      .values(uuid=agg)).inserted_primary_key[0]
            if rp is not None:
                conn.execute(t.resource_provider_aggregates.insert()
                             .values(aggregate_id=agg_id, resource_provider_id=rp))
    db.write(write)


def add_inventory(db, uuid, rc, total, reserved=0, min_unit=1, max_unit=2147483647,
                  step_size=1, allocation_ratio=1.0):
    def write(conn):
        conn.execute(t.inventories.insert().values(
            resource_provider_id=rp_id(conn, uuid), resource_class_id=_class_id(conn, rc),
            total=total, reserved=reserved, min_unit=min_unit, max_unit=max_unit,
            step_size=step_size, allocation_ratio=allocation_ratio))
    db.write(write)


add_allocation = factories.allocation


def count_rows(db, table, uuid_or_id):
    def read(conn):
        rp = uuid_or_id if isinstance(uuid_or_id, int) else rp_id(conn, uuid_or_id)
        return conn.execute(sa.select(sa.func.count()).select_from(table)
                            .where(table.c.resource_provider_id == rp)).scalar()
    return db.read(read)


def links(uuid, *rels):
    url = f"{RPS}/{uuid}"
    return [{"rel": "self", "href": url}] + [{"rel": r, "href": f"{url}/{r}"} for r in rels]
