"""GET /capacity without resources: capacity, use and free room per class,
summed over the providers GET /resource_providers' filters select, in one
read; optionally per root provider or per aggregate."""

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.db import resource_providers as rp_db
from placer.db import tables as t
from placer.db.capacity import capacity_of
from placer.model.inventory import capacity

GROUPS = ("aggregate", "root")

inv_t, rp_t, rc_t = t.inventories, t.resource_providers, t.resource_classes
_root = rp_t.alias("root")


def _used():
    a = t.allocations
    return (sa.select(a.c.resource_provider_id, a.c.resource_class_id,
                      sa.func.sum(a.c.used).label("used"))
            .group_by(a.c.resource_provider_id, a.c.resource_class_id).subquery())


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
    used = _used()
    key: sa.ColumnElement
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
    joined = (source.join(inv_t, inv_t.c.resource_provider_id == rp_t.c.id)
              .join(rc_t, rc_t.c.id == inv_t.c.resource_class_id)
              .outerjoin(used, sa.and_(
                  used.c.resource_provider_id == inv_t.c.resource_provider_id,
                  used.c.resource_class_id == inv_t.c.resource_class_id)))
    in_use = sa.func.coalesce(used.c.used, 0)
    room = capacity_of(inv_t, conn.dialect.name)
    result: dict[str | None, dict[str, dict[str, int]]] = {}
    if room is not None:  # summed by the database
        free = sa.case((room > in_use, room - in_use), else_=0)
        for group, rc, room_sum, used_sum, free_sum in conn.execute(
                sa.select(key, rc_t.c.name, sa.func.sum(room), sa.func.sum(in_use),
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


def inventory_rows(conn: Connection) -> list[tuple]:
    """Every inventory record with its provider's name and the amount used:
    (provider name, class, total, reserved, allocation_ratio, used), by
    provider id and class name, as GET /resource_providers/{uuid}/inventories
    and /usages would give them provider by provider."""
    used = _used()
    return list(conn.execute(
        sa.select(rp_t.c.name, rc_t.c.name, inv_t.c.total, inv_t.c.reserved,
                  inv_t.c.allocation_ratio, sa.func.coalesce(used.c.used, 0))
        .select_from(inv_t.join(rp_t, rp_t.c.id == inv_t.c.resource_provider_id)
                     .join(rc_t, rc_t.c.id == inv_t.c.resource_class_id)
                     .outerjoin(used, sa.and_(
                         used.c.resource_provider_id == inv_t.c.resource_provider_id,
                         used.c.resource_class_id == inv_t.c.resource_class_id)))
        .order_by(rp_t.c.id, rc_t.c.name)))


def aggregates_of(conn: Connection, uuids: list[str]) -> dict[str, list[str]]:
    """Provider uuid -> the uuids of its aggregates (sorted), for ``uuids``."""
    if not uuids:
        return {}
    rpa, agg = t.resource_provider_aggregates, t.placement_aggregates
    found: dict[str, list[str]] = {}
    for start in range(0, len(uuids), 1000):  # bounded IN lists
        rows = conn.execute(
            sa.select(rp_t.c.uuid, agg.c.uuid)
            .select_from(rp_t.join(rpa, rpa.c.resource_provider_id == rp_t.c.id)
                         .join(agg, agg.c.id == rpa.c.aggregate_id))
            .where(rp_t.c.uuid.in_(uuids[start:start + 1000])).order_by(agg.c.uuid))
        for provider, aggregate in rows:
            found.setdefault(provider, []).append(aggregate)
    return found
