"""The room in inventory records, in SQL: what their allocations use, their
capacity, and whether one can take an amount more (model.inventory's rules:
amount_within_units, capacity). Used where the database filters providers
(GET /resource_providers?resources=, the candidate root filter) or sums
them (GET /capacity, the capacity gauges, the trees' scores).
"""

import functools
import math
from typing import Any

import sqlalchemy as sa

from placer.db.tables import allocations
from placer.model.inventory import MAX_INT

# MySQL stores allocation_ratio in single precision and computes with that
# value, while Python reads it back rounded to its shortest text (0.9, not
# 0.89999998): the database's capacity can be a hair below ours. A filter that
# must never be stricter than the engine adds this much headroom.
HEADROOM = (1.0001, 1)


@functools.lru_cache(maxsize=256)
def _divisors(amount: int) -> tuple[int, ...]:
    """The step sizes an amount (1 or more) is a multiple of."""
    small = [d for d in range(1, math.isqrt(amount) + 1) if amount % d == 0]
    return tuple(sorted({*small, *(amount // d for d in small)}))


def room_for(inv: sa.FromClause, amount: int, *, headroom: bool = False,
             used: sa.ColumnElement[int] | None = None) -> list[sa.ColumnElement[bool]]:
    """Conditions on ``inv`` (the inventories table or an alias) that its row
    can give ``amount`` more (model.inventory.can_take, in SQL), usage
    summed through the (provider, class, used) index (or ``used``, what
    ``joined_use`` joined). Comparing the integer
    demand with the unrounded capacity is the same as comparing it with
    int(capacity). ``headroom``: a necessary
    condition only, looser by a rounding error (see HEADROOM).

    The step rule is written ``step_size IN (divisors)``: PostgreSQL estimates
    that from its statistics, whereas ``amount % step_size = 0`` gets a fixed
    guess of 0.5% that made it nest loops over every provider (7 to 35 s at
    10,000 providers)."""
    if amount > MAX_INT:
        return [sa.false()]  # beyond any max_unit the API can store
    used = used_of(inv) if used is None else used
    room = (inv.c.total - inv.c.reserved) * inv.c.allocation_ratio
    if headroom:
        room = room * HEADROOM[0] + HEADROOM[1]
    amount_ = sa.literal(amount, sa.Integer)
    return [inv.c.min_unit <= amount_, inv.c.max_unit >= amount_,
            # inlined: a large amount can have a thousand divisors
            inv.c.step_size.op("IN")(sa.literal_column(
                f"({','.join(map(str, _divisors(amount)))})")),
            used + amount_ <= room]


def used_of(inv: sa.FromClause) -> sa.ColumnElement[int]:
    """What the allocations use of ``inv``'s row (0 when none), correlated:
    read through the (provider, class, used) index, row by row."""
    return (sa.select(sa.func.coalesce(sa.func.sum(allocations.c.used), 0))
            .where(allocations.c.resource_provider_id == inv.c.resource_provider_id,
                   allocations.c.resource_class_id == inv.c.resource_class_id)
            .scalar_subquery())


def used_per_record(*where: sa.ColumnElement[bool]) -> sa.Select[*tuple[Any, ...]]:
    """(resource_provider_id, resource_class_id, used) of every (provider,
    class) that allocations use (``where``: of the allocations table), for
    many records at once: joined as a subquery, or read as rows."""
    a = allocations
    return (sa.select(a.c.resource_provider_id, a.c.resource_class_id,
                      sa.func.sum(a.c.used).label("used"))
            .where(*where).group_by(a.c.resource_provider_id, a.c.resource_class_id))


def joined_use(source: sa.FromClause, inv: sa.FromClause,
               *where: sa.ColumnElement[bool]) -> tuple[sa.FromClause, sa.ColumnElement[int]]:
    """(``source`` outer-joined to what ``inv``'s records use, the use: 0 when none)."""
    used = used_per_record(*where).subquery()
    joined = source.outerjoin(used, sa.and_(
        used.c.resource_provider_id == inv.c.resource_provider_id,
        used.c.resource_class_id == inv.c.resource_class_id))
    return joined, sa.func.coalesce(used.c.used, 0)


def capacity_of(inv: sa.FromClause, dialect: str) -> sa.ColumnElement[int] | None:
    """model.inventory.capacity on ``inv``'s row, where the database computes
    it as Python does: in double precision, truncated (SQLite's REAL,
    PostgreSQL's double precision; PostgreSQL's bounded to a bigint). None
    on MySQL, whose single-precision ratio Python reads back rounded: the
    caller computes it from the columns."""
    product = (inv.c.total - inv.c.reserved) * inv.c.allocation_ratio
    if dialect == "sqlite":
        return sa.cast(product, sa.Integer)
    if dialect == "postgresql":
        bounded = sa.func.least(sa.func.greatest(sa.func.trunc(product), -4.6e18), 4.6e18)
        return sa.cast(bounded, sa.BigInteger)
    return None
