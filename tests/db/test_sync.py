"""The standard classes and traits sync survives processes running it at once.

Workers booting together on a fresh database (or after an os-traits /
os-resource-classes upgrade) all find the same names missing and all insert
them. To make that race certain rather than likely, every syncing thread is
held before its first INSERT until all of them have read what is missing.
"""

import threading

import os_resource_classes as orc
import os_traits
import pytest
import sqlalchemy as sa
from sqlalchemy import event

from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from placer.db.tables import resource_classes, traits

THREADS = 6


def _run_concurrently(engine, threads: int = THREADS) -> list[BaseException]:
    """``threads`` syncs at once, each in its own write transaction."""
    db = db_engine.Database(engine)
    # SQLite serialises writers (BEGIN IMMEDIATE): holding one at the barrier
    # would only stall the others, so there the sync just runs side by side.
    barrier = threading.Barrier(threads, timeout=60) if engine.dialect.name != "sqlite" else None
    local = threading.local()
    errors: list[BaseException] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _hold_first_insert(conn, cursor, statement, params, context, executemany):
        if barrier and statement.lstrip().upper().startswith("INSERT") \
                and not getattr(local, "waited", False):
            local.waited = True
            try:
                barrier.wait()
            except threading.BrokenBarrierError:  # a thread already failed
                pass

    def worker():
        try:
            db.write(sync.sync_standard_names)
        except BaseException as exc:  # reported by the test
            errors.append(exc)
            if barrier:
                barrier.abort()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    event.remove(engine, "before_cursor_execute", _hold_first_insert)
    return errors


def _assert_fully_synced(engine) -> None:
    with engine.connect() as conn:
        classes = {r.name: r.id for r in conn.execute(
            sa.select(resource_classes.c.name, resource_classes.c.id))}
        names = list(conn.execute(sa.select(traits.c.name)).scalars())
    assert classes == {name: i for i, name in enumerate(orc.STANDARDS)}
    assert sorted(names) == sorted(os_traits.get_traits())


def test_concurrent_sync_on_a_fresh_database(empty_engine):
    schema_migrations.upgrade(empty_engine)
    assert _run_concurrently(empty_engine) == []
    _assert_fully_synced(empty_engine)


@pytest.mark.parametrize("missing", ["traits", "classes", "both"])
def test_concurrent_sync_after_an_upgrade_adds_names(empty_engine, missing):
    """As after upgrading os-traits / os-resource-classes: some names missing."""
    schema_migrations.upgrade(empty_engine)
    db_engine.Database(empty_engine).write(sync.sync_standard_names)
    with empty_engine.begin() as conn:
        if missing in ("traits", "both"):
            conn.execute(traits.delete().where(
                traits.c.name.like("HW\\_CPU\\_X86\\_%", escape="\\")))
        if missing in ("classes", "both"):
            conn.execute(resource_classes.delete().where(
                resource_classes.c.name.in_(orc.STANDARDS[-3:])))
    assert _run_concurrently(empty_engine) == []
    _assert_fully_synced(empty_engine)


def test_sync_is_idempotent_and_leaves_the_session_as_it_was(empty_engine):
    """MySQL needs a session mode to keep VCPU at id 0: it must not stay on the
    pooled connection."""
    schema_migrations.upgrade(empty_engine)
    mysql = empty_engine.dialect.name == "mysql"
    for _ in range(2):
        with empty_engine.begin() as conn:
            before = conn.exec_driver_sql("SELECT @@SESSION.sql_mode").scalar() if mysql else None
            sync.sync_standard_names(conn)
            after = conn.exec_driver_sql("SELECT @@SESSION.sql_mode").scalar() if mysql else None
        assert after == before
        _assert_fully_synced(empty_engine)
