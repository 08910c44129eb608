"""Pure rules of placer.model.inventory: defaults, capacity, unit limits."""

import datetime
import math
import sys

import pytest

from placer import exceptions
from placer.model import inventory
from placer.model.inventory import (
    DEFAULTS,
    FIELDS,
    MAX_INT,
    InventoryRecord,
    amount_within_units,
    can_take,
    capacity_problem,
    is_finite_ratio,
    over_capacity,
)

RP = "5b1a3c0e-8a36-4a4e-9b4e-2f1f3c0d9a11"


def test_bounds_are_the_sql_column_limits():
    assert MAX_INT == 2147483647
    assert inventory.MAX_RATIO == 3.40282e38
    assert DEFAULTS["max_unit"] == 2147483647


def test_from_body_fills_defaults_for_missing_fields():
    inv = InventoryRecord.from_body("VCPU", {"total": 8})
    assert inv.fields() == {"total": 8, "reserved": 0, "min_unit": 1,
                            "max_unit": 2147483647, "step_size": 1,
                            "allocation_ratio": 1.0}
    assert inv.resource_class == "VCPU"


def test_from_body_ignores_keys_that_are_not_inventory_fields():
    inv = InventoryRecord.from_body("DISK_GB", {"total": 100, "resource_provider_generation": 7,
                                          "resource_class": "MEMORY_MB"})
    assert inv.resource_class == "DISK_GB"
    assert "resource_provider_generation" not in inv.fields()
    assert inv.total == 100


def test_from_body_keeps_values_as_sent():
    body = {"total": 8.0, "reserved": 2, "min_unit": 2, "max_unit": 4, "step_size": 2,
            "allocation_ratio": 16}
    inv = InventoryRecord.from_body("VCPU", body)
    fields = inv.fields()
    assert fields == body
    assert isinstance(fields["total"], float)
    assert isinstance(fields["allocation_ratio"], int)


def test_fields_are_in_api_order():
    inv = InventoryRecord("VCPU", total=1)
    assert list(inv.fields()) == ["total", "reserved", "min_unit", "max_unit",
                                  "step_size", "allocation_ratio"]
    assert FIELDS == tuple(inv.fields())


def test_row_turns_integral_floats_into_ints_and_ratio_into_float():
    inv = InventoryRecord("VCPU", total=8.0, reserved=1.0, min_unit=1, max_unit=4.0,
                    step_size=1, allocation_ratio=2)
    row = inv.row()
    assert row == {"total": 8, "reserved": 1, "min_unit": 1, "max_unit": 4,
                   "step_size": 1, "allocation_ratio": 2.0}
    assert [type(row[k]) for k in FIELDS] == [int] * 5 + [float]


def test_stamp_prefers_updated_at_over_created_at():
    created = datetime.datetime(2020, 1, 1)
    updated = datetime.datetime(2021, 1, 1)
    assert InventoryRecord("VCPU", 1).stamp is None
    assert InventoryRecord("VCPU", 1, created_at=created).stamp == created
    assert InventoryRecord("VCPU", 1, created_at=created, updated_at=updated).stamp == updated


def test_inventory_is_frozen():
    inv = InventoryRecord("VCPU", 1)
    with pytest.raises(AttributeError):
        inv.total = 2


@pytest.mark.parametrize(("total", "reserved", "ratio", "expected"), [
    (8, 0, 1.0, 8),
    (8, 2, 1.0, 6),
    (8, 2, 16.0, 96),
    (8, 8, 1.0, 0),
    (8, 9, 1.0, -1),
    (3, 0, 0.5, 1),        # 1.5 truncated
    (1, 0, 0.99, 0),       # 0.99 truncated
    (4, 5, 1.5, -1),       # -1.5 truncates toward zero
    (8, 0, 0.0, 0),
    (MAX_INT, 0, 1.0, MAX_INT),
    (MAX_INT, 0, -6.6e307, -sys.maxsize),  # the product overflows to -inf
    (-MAX_INT, 0, -6.6e307, sys.maxsize),
])
def test_capacity(total, reserved, ratio, expected):
    assert inventory.capacity(total, reserved, ratio) == expected
    inv = InventoryRecord("VCPU", total, reserved=reserved, allocation_ratio=ratio)
    assert inv.capacity == expected
    assert isinstance(inv.capacity, int)


_GE = "The reserved value is greater than or equal to total."
_GT = "The reserved value is greater than total."


@pytest.mark.parametrize(("total", "reserved", "ratio", "before_1_26", "from_1_26"), [
    (8, 7, 1.0, None, None),       # capacity 1: fine everywhere
    (8, 8, 1.0, _GE, None),        # zero capacity: only from 1.26
    (8, 9, 1.0, _GE, _GT),         # negative: never
    (8, 0, 0.0, _GE, None),        # a ratio of 0 counts like reserved == total
    (1, 0, 0.5, _GE, None),        # int(0.5) == 0
    (2, 0, 0.5, None, None),
    (MAX_INT, 0, -6.6e307, _GE, _GT),  # a capacity of -inf is refused, not a 500
])
def test_capacity_problem_before_and_from_1_26(total, reserved, ratio, before_1_26, from_1_26):
    inv = InventoryRecord("CUSTOM_X", total, reserved=reserved, allocation_ratio=ratio)
    prefix = f"Invalid inventory for 'CUSTOM_X' on resource provider '{RP}'. "
    for allowed, rule in ((False, before_1_26), (True, from_1_26)):
        got = capacity_problem(inv, RP, reserved_can_be_total=allowed)
        assert got == (None if rule is None else prefix + rule)


@pytest.mark.parametrize(("value", "expected"), [
    (1.0, True), (0, True), (-1.5, True), (3.40282e38, True), (1e308, True),
    (math.nan, False), (math.inf, False), (-math.inf, False),
])
def test_is_finite_ratio(value, expected):
    assert is_finite_ratio(value) is expected


@pytest.mark.parametrize(("ratio", "shown"), [(math.nan, "nan"), (-math.inf, "-inf"),
                                              (math.inf, "inf")])
def test_from_body_refuses_a_ratio_no_capacity_can_use(ratio, shown):
    with pytest.raises(exceptions.InvalidBody) as caught:
        InventoryRecord.from_body("VCPU", {"total": 8, "allocation_ratio": ratio})
    assert caught.value.detail == f"JSON does not validate: {shown} is not a finite number"
    assert caught.value.status == 400


@pytest.mark.parametrize(("amount", "expected"), [
    (1, False),    # below min_unit
    (2, True),     # == min_unit, on a step
    (3, False),    # off step
    (4, True),
    (8, True),     # == max_unit
    (9, False),    # above max_unit
    (10, False),   # above max_unit though on a step
])
def test_amount_within_units(amount, expected):
    inv = InventoryRecord("VCPU", 16, min_unit=2, max_unit=8, step_size=2)
    assert amount_within_units(inv, amount) is expected


def test_amount_within_units_step_is_counted_from_zero_not_min_unit():
    inv = InventoryRecord("VCPU", 100, min_unit=3, max_unit=100, step_size=5)
    assert amount_within_units(inv, 5) is True
    assert amount_within_units(inv, 3) is False
    assert amount_within_units(inv, 8) is False


def test_amount_within_units_defaults_accept_up_to_max_int():
    inv = InventoryRecord("VCPU", 1)
    assert amount_within_units(inv, MAX_INT) is True
    assert amount_within_units(inv, MAX_INT + 1) is False
    assert amount_within_units(inv, 0) is False


@pytest.mark.parametrize(("used", "expected"), [(0, False), (12, False), (13, True)])
def test_over_capacity(used, expected):
    inv = InventoryRecord("VCPU", 8, reserved=2, allocation_ratio=2.0)  # capacity 12
    assert over_capacity(inv, used) is expected


@pytest.mark.parametrize(("used", "amount", "already", "expected"), [
    (0, 4, 0, True),
    (0, 3, 0, False),    # off step
    (0, 2, 0, False),    # below min_unit
    (0, 8, 0, True),     # == max_unit
    (0, 10, 0, False),   # over max_unit
    (0, 4, 4, True),     # the candidate's total == max_unit
    (0, 4, 6, False),    # the candidate's total over max_unit
    (4, 8, 0, True),     # used + amount == capacity (12)
    (6, 8, 0, False),    # over capacity
    (6, 4, 4, False),    # used + the candidate's total over capacity
])
def test_can_take(used, amount, already, expected):
    inv = InventoryRecord("VCPU", 8, reserved=2, min_unit=4, max_unit=8, step_size=2,
                    allocation_ratio=2.0)  # capacity 12
    assert can_take(inv, used, amount, already) is expected


def test_can_take_is_the_engines_fits():
    """The candidate engine's Provider.fits applies the same rule to its
    records (a tuple with the capacity computed once)."""
    from placer.candidates.snapshot import Inventory as Record
    from placer.candidates.snapshot import Provider

    fields = {"total": 8, "reserved": 2, "min_unit": 2, "max_unit": 6, "step_size": 2,
              "allocation_ratio": 1.5}
    model, record = InventoryRecord("VCPU", **fields), Record(**fields)
    for used in range(0, 12):
        provider = Provider(1, "u", "n", None, 1, inventories={"VCPU": record},
                            usages={"VCPU": used})
        for amount in range(0, 12):
            for already in range(0, 8):
                assert provider.fits("VCPU", amount, already) == can_take(
                    model, used, amount, already) == can_take(record, used, amount, already)


def test_rule_parts_together_are_can_take():
    """explain names the part that refuses an amount: the parts must add up
    to can_take for a group's amount alone."""
    from placer.model.inventory import RULE_PARTS

    assert list(RULE_PARTS) == ["capacity", "min_unit", "max_unit", "step_size"]
    for step in (1, 2, 3):
        inv = InventoryRecord("VCPU", 8, reserved=2, min_unit=2, max_unit=6, step_size=step,
                        allocation_ratio=1.5)  # capacity 9
        for used in range(0, 11):
            for amount in range(0, 12):
                parts = {name: rule(inv, used, amount) for name, rule in RULE_PARTS.items()}
                assert all(parts.values()) == can_take(inv, used, amount), (used, amount, parts)
    # each part can be the only one refusing
    inv = InventoryRecord("VCPU", 8, min_unit=2, max_unit=6, step_size=2)
    assert [n for n, rule in RULE_PARTS.items() if not rule(inv, 4, 6)] == ["capacity"]
    assert [n for n, rule in RULE_PARTS.items() if not rule(inv, 0, 1)] == ["min_unit", "step_size"]
    assert [n for n, rule in RULE_PARTS.items() if not rule(inv, 0, 8)] == ["max_unit"]
    assert [n for n, rule in RULE_PARTS.items() if not rule(inv, 0, 3)] == ["step_size"]
