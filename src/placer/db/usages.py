"""Usage: how much of each inventory the allocations consume."""

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.db import resource_providers as rp_db
from placer.db.tables import allocations as alloc_t
from placer.db.tables import consumer_types as ct_t
from placer.db.tables import consumers as cons_t
from placer.db.tables import inventories as inv_t
from placer.db.tables import projects as proj_t
from placer.db.tables import resource_classes as rc_t
from placer.db.tables import users as user_t


def for_provider(conn: Connection, uuid: str) -> tuple[rp_db.ProviderRecord, dict[str, int]]:
    """The provider and, for every class it has inventory of, the amount
    allocated (0 when nothing is). Allocations of classes without inventory
    are not listed, as in the reference."""
    provider = rp_db.get(conn, uuid, prefix=f"{rp_db.missing(uuid)}: ")
    used = sa.func.coalesce(sa.func.sum(alloc_t.c.used), 0)
    rows = conn.execute(
        sa.select(rc_t.c.name, used)
        .select_from(
            inv_t.join(rc_t, inv_t.c.resource_class_id == rc_t.c.id)
            .outerjoin(alloc_t, sa.and_(
                alloc_t.c.resource_provider_id == inv_t.c.resource_provider_id,
                alloc_t.c.resource_class_id == inv_t.c.resource_class_id)))
        .where(inv_t.c.resource_provider_id == provider.id)
        .group_by(inv_t.c.resource_class_id, rc_t.c.name)
        .order_by(inv_t.c.resource_class_id))
    # MySQL sums to DECIMAL: hand out plain ints
    return provider, {name: int(amount) for name, amount in rows}


def for_project(conn: Connection, project_id: str, user_id: str | None = None,
                consumer_type: str | None = None,
                by_type: bool = False) -> dict[str, int] | dict[str, dict[str, int]]:
    """Usage summed over a project's (and optionally a user's) consumers.

    Without ``by_type``: {class: used}. With it (1.38): {type: {class: used,
    "consumer_count": n}}, where ``consumer_type`` may name one type, or be
    "all" (everything under one key) or "unknown" (consumers without a type).
    """
    used = sa.func.sum(alloc_t.c.used)
    joined = (alloc_t.join(rc_t, alloc_t.c.resource_class_id == rc_t.c.id)
              .join(cons_t, alloc_t.c.consumer_id == cons_t.c.uuid)
              .join(proj_t, cons_t.c.project_id == proj_t.c.id)
              .join(user_t, cons_t.c.user_id == user_t.c.id)
              .outerjoin(ct_t, cons_t.c.consumer_type_id == ct_t.c.id))
    where = [proj_t.c.external_id == project_id]
    if user_id:
        where.append(user_t.c.external_id == user_id)
    if consumer_type == "unknown":
        where.append(cons_t.c.consumer_type_id.is_(None))
    elif consumer_type and consumer_type != "all":
        where.append(ct_t.c.name == consumer_type)
    if not by_type:
        rows = conn.execute(sa.select(rc_t.c.name, used).select_from(joined).where(*where)
                            .group_by(rc_t.c.id, rc_t.c.name).order_by(rc_t.c.id))
        return {name: int(amount) for name, amount in rows}
    # "all" folds every type under one key; otherwise a missing type is "unknown"
    kind = [] if consumer_type == "all" else [sa.func.coalesce(ct_t.c.name, "unknown")]
    rows = conn.execute(
        sa.select(*kind, rc_t.c.name, used).select_from(joined).where(*where)
        .group_by(*kind, rc_t.c.id, rc_t.c.name).order_by(*kind, rc_t.c.id))
    counts = conn.execute(
        sa.select(*kind, sa.func.count(sa.distinct(alloc_t.c.consumer_id)))
        .select_from(joined).where(*where).group_by(*kind))
    result: dict[str, dict[str, int]] = {}
    for row in rows:
        key = "all" if not kind else row[0]
        result.setdefault(key, {})[row[-2]] = int(row[-1])
    for counted in counts:
        key = "all" if not kind else counted[0]
        if key in result:  # an ungrouped count answers 0 even when nothing matched
            result[key]["consumer_count"] = int(counted[-1])
    return result
