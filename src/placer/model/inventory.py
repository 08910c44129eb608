"""Inventory records and their pure rules: defaults, capacity, amount limits.

No SQL and no HTTP: the handlers, the store's allocation checks and the
candidate engine share these (db/room.py says the same rules in SQL).
"""

import dataclasses
import datetime
import math
import sys
from collections.abc import Callable
from typing import Any

from placer import exceptions

# Largest value of the signed 32-bit INTEGER columns: the API's bound for
# total, reserved, min_unit, max_unit and step_size, and max_unit's default.
MAX_INT = 2**31 - 1
# Largest single-precision SQL FLOAT: the API's bound for allocation_ratio.
MAX_RATIO = 3.40282e38

FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")
DEFAULTS = {"reserved": 0, "min_unit": 1, "max_unit": MAX_INT, "step_size": 1,
            "allocation_ratio": 1.0}


@dataclasses.dataclass(frozen=True)
class InventoryRecord:
    """One (provider, class) inventory as the API writes and reads it (the
    candidate engine reads its own, candidates.snapshot.Inventory). Values
    are kept as the client sent them (``8.0`` stays a float) because write
    responses echo the request."""

    resource_class: str
    total: int | float
    reserved: int | float = 0
    min_unit: int | float = 1
    max_unit: int | float = MAX_INT
    step_size: int | float = 1
    allocation_ratio: int | float = 1.0
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None

    @classmethod
    def from_body(cls, resource_class: str, data: dict) -> "InventoryRecord":
        """Fields from a validated request body, defaults for the missing ones;
        other keys (resource_provider_generation) are not inventory fields.
        InvalidBody for an allocation ratio no capacity can use."""
        values = {**DEFAULTS, **{k: v for k, v in data.items() if k in FIELDS}}
        ratio = values["allocation_ratio"]
        if not is_finite_ratio(ratio):
            raise exceptions.InvalidBody(f"{ratio} is not a finite number")
        return cls(resource_class, **values)

    @property
    def capacity(self) -> int:
        return capacity(self.total, self.reserved, self.allocation_ratio)

    @property
    def stamp(self) -> datetime.datetime | None:
        """When the row last changed (None for one not read from the store)."""
        return self.updated_at or self.created_at

    def fields(self) -> dict:
        """The six API fields, in the API's order."""
        return {name: getattr(self, name) for name in FIELDS}

    def row(self) -> dict:
        """Column values for the store (integral floats become ints)."""
        values: dict[str, int | float] = {name: int(getattr(self, name))
                                          for name in FIELDS[:-1]}
        values["allocation_ratio"] = float(self.allocation_ratio)
        return values


def capacity(total, reserved, allocation_ratio) -> int:
    """What can be allocated: ``int((total - reserved) * allocation_ratio)``.
    A finite ratio near the float limits can make the product infinite: it
    counts as the largest capacity of its sign, so a negative one is still
    refused as one (not a 500)."""
    product = (total - reserved) * allocation_ratio
    if math.isinf(product):
        return sys.maxsize if product > 0 else -sys.maxsize
    return int(product)


def capacity_problem(inv: InventoryRecord, provider_uuid: str,
                     reserved_can_be_total: bool) -> str | None:
    """Why the inventory's capacity is unacceptable, or None.

    Before 1.26 the capacity must be positive; from 1.26 it may be zero (so
    reserved == total is allowed). The allocation ratio takes part, so a
    ratio of 0 is refused before 1.26 and accepted from it.
    """
    cap = inv.capacity
    if reserved_can_be_total:
        if cap >= 0:
            return None
        rule = "The reserved value is greater than total."
    else:
        if cap > 0:
            return None
        rule = "The reserved value is greater than or equal to total."
    return (f"Invalid inventory for '{inv.resource_class}' on resource provider "
            f"'{provider_uuid}'. {rule}")


def is_finite_ratio(value) -> bool:
    """JSON parsing accepts NaN and -Infinity, and the schema's 'number' (with
    its maximum) lets them through, but no capacity can use them."""
    return math.isfinite(value)


def amount_within_units(inv, amount: int) -> bool:
    """An allocation amount respects min_unit, max_unit and step_size."""
    return inv.min_unit <= amount <= inv.max_unit and amount % inv.step_size == 0


def can_take(inv, used: int, amount: int, already: int = 0) -> bool:
    """Whether ``amount`` more fits in ``inv`` (a model or an engine record)
    as one request group's share, ``used`` being allocated already.

    ``already`` is what the same candidate takes from this inventory for
    other groups: the unit rules apply to each group's amount, max_unit and
    capacity to the candidate's total (as the reference does).
    """
    total = already + amount
    return (amount_within_units(inv, amount) and total <= inv.max_unit
            and used + total <= inv.capacity)


# can_take for one group's amount, in parts named by the field that sets
# each: explain reports which part refuses. All parts hold exactly when
# can_take(inv, used, amount) does (a unit test pins it); can_take itself is
# written out because the candidate search calls it for every option.
RULE_PARTS: dict[str, Callable[[Any, int, int], bool]] = {
    "capacity": lambda inv, used, amount: used + amount <= inv.capacity,
    "min_unit": lambda inv, used, amount: inv.min_unit <= amount,
    "max_unit": lambda inv, used, amount: amount <= inv.max_unit,
    "step_size": lambda inv, used, amount: amount % inv.step_size == 0,
}


def over_capacity(inv: InventoryRecord, used: int) -> bool:
    """Usage exceeds what the inventory can now offer (allowed, but noted)."""
    return used > inv.capacity
