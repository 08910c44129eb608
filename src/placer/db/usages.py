"""Usage: how much of each inventory the allocations consume."""

import functools
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.db import resource_providers as rp_db
from placer.db import statements
from placer.db.tables import allocations as alloc_t
from placer.db.tables import consumer_types as ct_t
from placer.db.tables import consumers as cons_t
from placer.db.tables import inventories as inv_t
from placer.db.tables import projects as proj_t
from placer.db.tables import resource_classes as rc_t
from placer.db.tables import resource_providers as rp_t
from placer.db.tables import users as user_t

_OF_PROVIDER = rp_db.of_named_provider(
    sa.select(rc_t.c.name, sa.func.coalesce(sa.func.sum(alloc_t.c.used), 0).label("used"))
    .select_from(
        inv_t.join(rc_t, inv_t.c.resource_class_id == rc_t.c.id)
        .outerjoin(alloc_t, sa.and_(
            alloc_t.c.resource_provider_id == inv_t.c.resource_provider_id,
            alloc_t.c.resource_class_id == inv_t.c.resource_class_id)))
    .group_by(inv_t.c.resource_class_id, rc_t.c.name)
    .order_by(inv_t.c.resource_class_id), inv_t.c.resource_provider_id,
).group_by(rp_t.c.generation)  # (PostgreSQL: the generation is grouped too)


def for_provider(conn: Connection, uuid: str) -> tuple[int, dict[str, int]]:
    """The provider's generation and, for every class it has inventory of,
    the amount allocated (0 when nothing is). Allocations of classes
    without inventory are not listed, as in the reference."""
    generation, rows = rp_db.generation_and_rows(conn, _OF_PROVIDER, uuid,
                                                 prefix=f"{rp_db.missing(uuid)}: ")
    # MySQL sums to DECIMAL: hand out plain ints
    return generation, {r.name: int(r.used) for r in rows}


@functools.cache
def _project_statement(by_user: bool, type_filter: str | None, by_type: bool) -> sa.Select[Any]:
    """The statement of ``for_project`` for one shape of request, built
    once (SQLAlchemy then keeps its cache key and compiled form):
    ``type_filter`` is "unknown", "named", "all" or None; "all" filters
    nothing, and with ``by_type`` folds every type under one key. Bind
    parameters: project_id, user_id, consumer_type.
    With ``by_type``, each type's consumer count comes in the same answer,
    after the sums, as a row without a class."""
    used = sa.func.sum(alloc_t.c.used)
    joined = (alloc_t.join(rc_t, alloc_t.c.resource_class_id == rc_t.c.id)
              .join(cons_t, alloc_t.c.consumer_id == cons_t.c.uuid)
              .join(proj_t, cons_t.c.project_id == proj_t.c.id)
              .join(user_t, cons_t.c.user_id == user_t.c.id)
              .outerjoin(ct_t, cons_t.c.consumer_type_id == ct_t.c.id))
    where = [proj_t.c.external_id == sa.bindparam("project_id")]
    if by_user:
        where.append(user_t.c.external_id == sa.bindparam("user_id"))
    if type_filter == "unknown":
        where.append(cons_t.c.consumer_type_id.is_(None))
    elif type_filter == "named":
        where.append(ct_t.c.name == sa.bindparam("consumer_type"))
    if not by_type:
        return (sa.select(rc_t.c.name, used).select_from(joined).where(*where)
                .group_by(rc_t.c.id, rc_t.c.name).order_by(rc_t.c.id))
    # "all" folds every type under one key; otherwise a missing type is "unknown"
    kind = (sa.literal("all") if type_filter == "all"
            else sa.func.coalesce(ct_t.c.name, "unknown"))
    sums = (sa.select(sa.literal(0).label("part"), kind.label("kind"),
                      rc_t.c.id.label("class_id"), rc_t.c.name.label("name"),
                      used.label("amount"))
            .select_from(joined).where(*where).group_by(kind, rc_t.c.id, rc_t.c.name))
    counts = (sa.select(sa.literal(1), kind, sa.null(), sa.null(),
                        sa.func.count(sa.distinct(alloc_t.c.consumer_id)))
              .select_from(joined).where(*where).group_by(kind))
    union = sa.union_all(sums, counts).subquery()
    return (sa.select(union.c.kind, union.c.name, union.c.amount)
            .order_by(union.c.part, union.c.kind, union.c.class_id))


def for_project(conn: Connection, project_id: str, user_id: str | None = None,
                consumer_type: str | None = None,
                by_type: bool = False) -> dict[str, int] | dict[str, dict[str, int]]:
    """Usage summed over a project's (and optionally a user's) consumers.

    Without ``by_type``: {class: used}. With it (1.38): {type: {class: used,
    "consumer_count": n}}, where ``consumer_type`` may name one type, or be
    "all" (everything under one key) or "unknown" (consumers without a type).
    """
    type_filter = (consumer_type if consumer_type in ("unknown", "all")
                   else "named" if consumer_type else None)
    rows = statements.rows(conn, _project_statement(bool(user_id), type_filter, by_type), {
        "project_id": project_id, "user_id": user_id, "consumer_type": consumer_type})
    if not by_type:
        return {name: int(amount) for name, amount in rows}
    result: dict[str, dict[str, int]] = {}
    for kind, name, amount in rows:
        if name is not None:
            result.setdefault(kind, {})[name] = int(amount)
        else:  # a type's count comes after its sums (ORDER BY part)
            result[kind]["consumer_count"] = int(amount)
    return result
