"""Capacity math and amount rules for one inventory record.

An inventory offers ``int((total - reserved) * allocation_ratio)`` units; a
single amount taken from it must lie within min_unit..max_unit and be a
multiple of step_size. These are the reference's rules; SQL versions of the
same tests (db/resource_providers.py) must agree with these.
"""

from typing import Protocol

# Integer columns (total, reserved, min_unit, max_unit, step_size, used) are
# 32-bit on PostgreSQL and MySQL; the API never stores more.
MAX_INT = 2147483647


class InventoryLike(Protocol):
    total: int
    reserved: int
    min_unit: int
    max_unit: int
    step_size: int
    allocation_ratio: float


def capacity(total: int, reserved: int, allocation_ratio: float) -> int:
    """Units an inventory can hand out in all."""
    return int((total - reserved) * allocation_ratio)


def amount_allowed(amount: int, min_unit: int, max_unit: int, step_size: int) -> bool:
    """Whether one request for ``amount`` respects the unit constraints."""
    return min_unit <= amount <= max_unit and step_size > 0 and amount % step_size == 0


def fits(inv: InventoryLike, used: int, amount: int) -> bool:
    """Whether ``amount`` more can be taken from ``inv`` with ``used`` already taken."""
    return (amount_allowed(amount, inv.min_unit, inv.max_unit, inv.step_size)
            and used + amount <= capacity(inv.total, inv.reserved, inv.allocation_ratio))
