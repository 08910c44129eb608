"""Workers starting together with spread or pack rebuild stale scores once.

Every thread makes the scores exact at once (as each worker's Database
does before its first transaction, once the app tells it to keep them);
all are held until every one has begun its transaction, so that they
reach the lock together. Exactly one rebuilds, the others find the scores
exact.
"""

import threading

import sqlalchemy as sa

from placer.db import engine as db_engine
from placer.db import scores
from placer.db import tables as t

THREADS = 4
TREES = 30


def _providers_without_scores(db: db_engine.Database) -> None:
    """Roots with inventory and a claim, written as a write under id does:
    no score rows."""
    def write(conn):
        for n in range(TREES):
            rp_id = conn.execute(t.resource_providers.insert().values(
                uuid=f"00000000-0000-0000-0000-{n:012d}", name=f"h{n}",
                generation=1)).inserted_primary_key[0]
            conn.execute(t.resource_providers.update().where(t.resource_providers.c.id == rp_id)
                         .values(root_provider_id=rp_id))
            conn.execute(t.inventories.insert().values(
                resource_provider_id=rp_id, resource_class_id=0, total=8, reserved=0,
                min_unit=1, max_unit=8, step_size=1, allocation_ratio=1.0))
            conn.execute(t.allocations.insert().values(
                resource_provider_id=rp_id, consumer_id=f"c{n}", resource_class_id=0, used=n % 8))
    db.write(write)


def test_workers_starting_together_rebuild_once(db):
    _providers_without_scores(db)
    assert db.read(scores.stale) == TREES
    engine = db.engine
    begun = threading.Barrier(THREADS, timeout=60)
    rebuilt: list[int] = []
    errors: list[BaseException] = []

    def start():
        try:
            with engine.connect() as conn:
                conn = conn.execution_options(placer_write=True)  # SQLite: BEGIN IMMEDIATE
                if engine.dialect.name != "sqlite":  # SQLite's writers wait at BEGIN
                    with conn.begin():
                        conn.execute(sa.select(1))
                        begun.wait()
                        rebuilt.append(scores.make_exact(conn))
                else:
                    begun.wait()
                    with conn.begin():
                        rebuilt.append(scores.make_exact(conn))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert sorted(rebuilt) == [0] * (THREADS - 1) + [TREES]
    assert db.read(scores.stale) == 0
