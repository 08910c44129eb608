"""Capacity, use and free room per resource class (GET /capacity without
resources, placement-manage capacity), summed over the providers GET
/resource_providers' filters select, in one read; optionally per root
provider or per aggregate."""

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.db import resource_providers as rp_db
from placer.db import room
from placer.db import tables as t
from placer.model.inventory import capacity

GROUPS = ("aggregate", "root")

inv_t, rp_t, rc_t = t.inventories, t.resource_providers, t.resource_classes
_root = rp_t.alias("root")


def summary(conn: Connection, f: rp_db.ProviderFilter, group_by: str | None = None
            ) -> dict[str | None, dict[str, dict[str, int]]]:
    """Group key (a root's or an aggregate's uuid; None when not grouped)
    -> class -> {"capacity", "used", "free"}. Capacity is each provider's
    (total - reserved) x allocation_ratio rounded down, free its capacity
    less its use, never below 0, both summed over the providers. A provider
    in several aggregates counts in each; one in none, in no group."""
    conds = rp_db.conditions(conn, f)
    if conds is None:
        return {}
    key: sa.ColumnElement[Any]  # a uuid column, or NULL when not grouped
    source: sa.FromClause
    if group_by == "root":
        key = _root.c.uuid
        source = rp_t.join(_root, _root.c.id == rp_t.c.root_provider_id)
    elif group_by == "aggregate":
        rpa, agg = t.resource_provider_aggregates, t.placement_aggregates
        key = agg.c.uuid
        source = (rp_t.join(rpa, rpa.c.resource_provider_id == rp_t.c.id)
                  .join(agg, agg.c.id == rpa.c.aggregate_id))
    else:
        key = sa.null()
        source = rp_t
    joined, in_use = room.joined_use(
        source.join(inv_t, inv_t.c.resource_provider_id == rp_t.c.id)
        .join(rc_t, rc_t.c.id == inv_t.c.resource_class_id), inv_t)
    record_capacity = room.capacity_of(inv_t, conn.dialect.name)
    result: dict[str | None, dict[str, dict[str, int]]] = {}
    if record_capacity is not None:  # summed by the database
        free = sa.case((record_capacity > in_use, record_capacity - in_use), else_=0)
        for group, rc, room_sum, used_sum, free_sum in conn.execute(
                sa.select(key, rc_t.c.name, sa.func.sum(record_capacity), sa.func.sum(in_use),
                          sa.func.sum(free))
                .select_from(joined).where(*conds)
                .group_by(*([] if group_by is None else [key]), rc_t.c.name)):
            result.setdefault(group, {})[rc] = {
                "capacity": int(room_sum), "used": int(used_sum), "free": int(free_sum)}
    else:  # MySQL: the capacity rule on what Python reads (see capacity_of)
        for group, rc, total, reserved, ratio, held in conn.execute(
                sa.select(key, rc_t.c.name, inv_t.c.total, inv_t.c.reserved,
                          inv_t.c.allocation_ratio, in_use).select_from(joined).where(*conds)):
            cap = capacity(total, reserved, ratio)
            sums = result.setdefault(group, {}).setdefault(
                rc, {"capacity": 0, "used": 0, "free": 0})
            sums["capacity"] += cap
            sums["used"] += int(held)
            sums["free"] += max(cap - int(held), 0)
    return {group: dict(sorted(classes.items())) for group, classes in sorted(
        result.items(), key=lambda item: item[0] or "")}
