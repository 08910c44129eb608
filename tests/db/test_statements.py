"""Built statements run on the driver's cursor (db/statements.py) answer
what SQLAlchemy's own execution answers, row for row and type for type,
on every backend; they fire the cursor events; and a driver error takes
SQLAlchemy's path (a dead pooled connection found by one of these reads:
tests/functional/test_outage.py)."""

import datetime
import re
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from placer.db import aggregates, allocations, inventories, statements, traits, usages
from placer.db import resource_classes as rc_db
from placer.db import resource_providers as rp_db
from placer.db.tables import resource_classes
from tests.helpers import factories

PROJECT = str(uuid.uuid4())


def _cloud(db) -> str:
    root = factories.provider(db, "root", inventory={"VCPU": 8, "MEMORY_MB": 4096},
                              traits=["CUSTOM_A", "HW_CPU_X86_AVX"],
                              aggregates=[str(uuid.uuid4())], generation=3)
    factories.provider(db, "child", parent=root, inventory={"DISK_GB": 100})
    factories.allocation(db, root, "VCPU", 2)
    factories.allocation(db, root, "MEMORY_MB", 512)
    return root


def _built(root: str) -> list[tuple[sa.Select, dict]]:
    """Every statement the everyday reads hand to ``statements.rows``."""
    out = [(rc_db._BY_NAME, {"name": "VCPU"}), (rc_db._BY_NAME, {"name": "CUSTOM_NONE"}),
           (rp_db._BY_UUID, {"uuid": root}), (rp_db._IN_TREE, {"in_tree": root})]
    out += [(module._OF_PROVIDER, {"uuid": root})
            for module in (inventories, traits, aggregates, allocations, usages)]
    for by_user in (False, True):
        for type_filter in (None, "unknown", "named", "all"):
            for by_type in (False, True):
                out.append((usages._project_statement(by_user, type_filter, by_type), {
                    "project_id": PROJECT, "user_id": "u", "consumer_type": "INSTANCE"}))
    return out


def test_rows_are_sqlalchemys_rows(db):
    root = _cloud(db)
    for stmt, params in _built(root):
        def both(conn, stmt=stmt, params=params):
            expected = conn.execute(stmt, params).all()
            statements.rows(conn, stmt, params)  # the first one plans
            return expected, statements.rows(conn, stmt, params)

        expected, got = db.read(both)
        assert [tuple(r) for r in got] == [tuple(r) for r in expected], stmt
        for want, row in zip(expected, got, strict=True):
            assert [type(v) for v in row] == [type(v) for v in want]
            # the names callers read (not SQLAlchemy's anonymous labels)
            for name in (n for n in want._fields if not re.search(r"_\d+$", n)):
                assert getattr(row, name) == getattr(want, name), name


def test_times_are_read_as_times(db):
    """SQLite keeps times as text: SQLAlchemy's result processing is kept."""
    found = db.read(lambda conn: [statements.rows(conn, rc_db._BY_NAME, {"name": "VCPU"})
                                  for _ in range(2)])
    assert isinstance(found[1][0].created_at, datetime.datetime)
    assert found[0] == found[1]


def test_cursor_events_see_each_statement(db):
    seen = []

    def before(conn, cursor, statement, parameters, context, executemany):
        seen.append(statement)

    db.read(lambda conn: statements.rows(conn, rc_db._BY_NAME, {"name": "VCPU"}))
    event.listen(db.engine, "before_cursor_execute", before)
    try:
        db.read(lambda conn: statements.rows(conn, rc_db._BY_NAME, {"name": "VCPU"}))
    finally:
        event.remove(db.engine, "before_cursor_execute", before)
    assert len(seen) == 1 and "resource_classes" in seen[0]


def test_statements_it_cannot_run_take_sqlalchemys_path(db):
    expanding = sa.select(resource_classes.c.name).where(
        resource_classes.c.name.in_(sa.bindparam("names", expanding=True))
    ).order_by(resource_classes.c.id)
    for _ in range(2):
        got = db.read(lambda conn: statements.rows(conn, expanding,
                                                   {"names": ["VCPU", "DISK_GB"]}))
        assert [r.name for r in got] == ["VCPU", "DISK_GB"]


def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(db):
    """A statement planned, then failing in the driver (here its table has
    gone): the error SQLAlchemy's own execution raises, in its class."""
    probe = sa.Table("statements_probe", sa.MetaData(), sa.Column("id", sa.Integer))
    stmt = sa.select(probe.c.id).where(probe.c.id == sa.bindparam("id"))
    probe.create(db.engine)
    try:
        assert db.read(lambda conn: [statements.rows(conn, stmt, {"id": 1})
                                     for _ in range(2)]) == [[], []]
    finally:
        probe.drop(db.engine)
    with pytest.raises(sa.exc.DBAPIError) as fast:
        db.read(lambda conn: statements.rows(conn, stmt, {"id": 1}))
    with pytest.raises(sa.exc.DBAPIError) as plain:
        db.read(lambda conn: conn.execute(stmt, {"id": 1}).all())
    assert type(fast.value) is type(plain.value)
    assert type(fast.value.orig) is type(plain.value.orig)
