"""GET /resource_providers?resources= selects providers by room in SQL in
two ways (db/resource_providers.py): a correlated usage sum per provider
and class, and, for a filter on resources alone on PostgreSQL, one grouped
usage sum joined to the inventory rows. On every backend both select
exactly the providers the model's rules (model.inventory) say can take
the amounts, over random clouds."""

import random

import pytest
import sqlalchemy as sa

from placer.db import resource_providers as rp_db
from placer.db.tables import resource_classes
from placer.db.tables import resource_providers as rp_t
from placer.model.inventory import InventoryRecord, amount_within_units
from tests.helpers import factories

CLASSES = ["VCPU", "MEMORY_MB", "DISK_GB"]


def _cloud(db, rng: random.Random) -> dict[str, dict[str, tuple[InventoryRecord, int]]]:
    """Providers with random inventories and usage: name -> class -> (record, used)."""
    cloud = {}
    for n in range(12):
        records = {}
        for rc in rng.sample(CLASSES, rng.randint(0, 3)):
            total = rng.choice([1, 4, 16, 100])
            step = rng.choice([1, 1, 2, 4])
            inv = InventoryRecord(rc, total=total, reserved=rng.choice([0, 0, 1, total]),
                                  min_unit=rng.choice([1, 1, 2]), max_unit=rng.choice(
                                      [total, max(1, total // 2)]), step_size=step,
                                  allocation_ratio=rng.choice([1.0, 1.5, 16.0]))
            records[rc] = (inv, rng.choice([0, 0, 1, total // 2, total]))
        uuid = factories.provider(db, f"p{n}", inventory={rc: {
            "total": inv.total, "reserved": inv.reserved, "min_unit": inv.min_unit,
            "max_unit": inv.max_unit, "step_size": inv.step_size,
            "allocation_ratio": inv.allocation_ratio} for rc, (inv, _) in records.items()})
        for rc, (_, used) in records.items():
            if used:
                factories.allocation(db, uuid, rc, used)
        cloud[f"p{n}"] = records
    return cloud


def _fits(records: dict[str, tuple[InventoryRecord, int]], amounts: dict[str, int]) -> bool:
    return all(rc in records and amount_within_units(records[rc][0], amount)
               and records[rc][1] + amount <= records[rc][0].capacity
               for rc, amount in amounts.items())


@pytest.mark.parametrize("seed", range(3))
def test_both_forms_select_what_the_model_says(db, seed):
    rng = random.Random(seed)
    cloud = _cloud(db, rng)

    def select(conn, form, amounts):
        ids = dict(conn.execute(sa.select(resource_classes.c.name, resource_classes.c.id)
                                .where(resource_classes.c.name.in_(CLASSES))).all())
        return sorted(conn.execute(sa.select(rp_t.c.name).where(
            form({ids[rc]: n for rc, n in amounts.items()}))).scalars())

    for _ in range(25):
        amounts = {rc: rng.choice([1, 2, 3, 4, 8, 50, 200])
                   for rc in rng.sample(CLASSES, rng.randint(1, 3))}
        expected = sorted(name for name, records in cloud.items() if _fits(records, amounts))
        for form in (rp_db._with_capacity, rp_db._with_capacity_grouped):
            assert db.read(select, form, amounts) == expected, (form.__name__, amounts)
