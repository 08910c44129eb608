"""placement-manage audit --fix beside the API's writers (db/audit_fixes.py,
db/consumers.py): a delete and a consumer write colliding, in both orders,
on every backend; then many writers and a fix running again and again.

A fix that locked a project first deletes it, and the writer waiting for it
creates the row anew; a writer that locked first keeps it.
An empty consumer given allocations first is kept; one deleted first fails
its writer's generation check, leaving no allocation without a consumer.
The collisions are made certain, not likely: the second party is shown to
wait on the first one's lock (tests/helpers/races.py) before the first
commits.
"""

import random
import threading
import uuid as uuidlib

import pytest
import sqlalchemy as sa

from placer import exceptions
from placer.cli import audit as cli_audit
from placer.db import allocations as allocations_db
from placer.db import audit as audit_db
from placer.db import audit_fixes
from placer.db import engine as db_engine
from placer.db import tables as t
from tests.helpers.candidates import Env
from tests.helpers.races import SecondWriter

TRIES = 10  # [placement] allocation_conflict_retry_count's default


class Waiting(SecondWriter):
    """A SecondWriter that collides at the first statement containing
    ``marker`` (SQLite: at its BEGIN IMMEDIATE, as SecondWriter does);
    ``retrying``: its write is retried on WriteRaced, as the handlers do."""

    def __init__(self, db, markers: tuple[str, ...], fn, *args, retrying: bool = False):
        super().__init__(_Retrying(db) if retrying else db, t.projects, fn, *args)
        self.markers = markers

    def _blocks_here(self, statement: str) -> bool:
        if self.db.backend == "sqlite":
            return super()._blocks_here(statement)
        return any(m in statement.upper() for m in self.markers)


class _Retrying:
    def __init__(self, db):
        self.engine, self.backend, self._db = db.engine, db.backend, db

    def write(self, fn, *args):
        return self._db.write_retrying(allocations_db.WriteRaced, TRIES, fn, *args)


SHARE = ("FOR KEY SHARE", "LOCK IN SHARE MODE")


@pytest.fixture
def world(api, db):
    """A provider with room; project p1 and user u1 that no consumer uses."""
    env = Env(api)
    env.rp("host", inv={"VCPU": 100000})
    db.write(lambda conn: (conn.execute(t.projects.insert().values(external_id="p1")),
                           conn.execute(t.users.insert().values(external_id="u1"))))
    return env


@pytest.fixture
def retries(monkeypatch):
    seen: list[str] = []
    monkeypatch.setattr(db_engine, "LISTENERS", [
        lambda event, detail: seen.append(detail) if event == "retry" else None])
    return seen


def _write(env, consumer: str, project: str = "p1", user: str = "u1", host: str = "host",
           generation: int | None = None):
    rules = allocations_db.WriteRules(check_generation=generation is not None)
    return (allocations_db.replace, [allocations_db.ConsumerWrite(
        consumer, {env.uuid[host]: {"VCPU": 1}}, project, user, generation)], rules)


def _dangling(conn) -> list[str]:
    """Consumers pointing at a missing project or user."""
    c, p, u = t.consumers, t.projects, t.users
    return list(conn.execute(
        sa.select(c.c.uuid)
        .select_from(c.outerjoin(p, p.c.id == c.c.project_id).outerjoin(u, u.c.id == c.c.user_id))
        .where(sa.or_(p.c.id.is_(None), u.c.id.is_(None)))).scalars())


def _owner(conn, consumer: str) -> tuple[str, str]:
    c, p, u = t.consumers, t.projects, t.users
    return tuple(conn.execute(
        sa.select(p.c.external_id, u.c.external_id)
        .select_from(c.join(p, p.c.id == c.c.project_id).join(u, u.c.id == c.c.user_id))
        .where(c.c.uuid == consumer)).one())


def test_a_writer_whose_project_was_deleted_meanwhile_retries(db, world, retries):
    consumer = str(uuidlib.uuid4())
    with db.transaction(write=True) as conn:
        assert audit_fixes.delete_unused(conn, "unused_projects",
                                         [{"external_id": "p1"}]) == ["p1"]
        writer = Waiting(db, SHARE, *_write(world, consumer), retrying=True).start()
        writer.wait_until_blocked()
    writer.join()
    assert db.read(_owner, consumer) == ("p1", "u1")  # created again
    assert db.read(_dangling) == []
    # The writer's locking read waited for the delete and found no row: it
    # created the rows again in its own transaction, without running again
    # (SQLite: it began after the delete committed, and saw it)
    assert retries == []


def test_a_user_deleted_meanwhile_too(db, world, retries):
    consumer = str(uuidlib.uuid4())
    with db.transaction(write=True) as conn:
        assert audit_fixes.delete_unused(conn, "unused_users", [{"external_id": "u1"}]) == ["u1"]
        writer = Waiting(db, SHARE, *_write(world, consumer), retrying=True).start()
        writer.wait_until_blocked()
    writer.join()
    assert db.read(_owner, consumer) == ("p1", "u1")
    assert db.read(_dangling) == []


def test_a_delete_waits_for_the_writer_and_keeps_the_row(db, world):
    consumer = str(uuidlib.uuid4())
    fn, writes, rules = _write(world, consumer)
    with db.transaction(write=True) as conn:
        fn(conn, writes, rules)  # p1 and u1 locked, the consumer written, uncommitted
        fixes = [Waiting(db, ("FOR UPDATE",), audit_fixes.delete_unused, kind,
                         [{"external_id": name}]).start()
                 for kind, name in (("unused_projects", "p1"), ("unused_users", "u1"))]
        for fix in fixes:
            fix.wait_until_blocked()
    assert [fix.join() for fix in fixes] == [[], []]
    assert db.read(_owner, consumer) == ("p1", "u1")


def _empty_consumer(db, consumer: str, generation: int) -> None:
    def plant(conn):
        project, user = (conn.execute(sa.select(tbl.c.id).where(tbl.c.external_id == name))
                         .scalar_one() for tbl, name in ((t.projects, "p1"), (t.users, "u1")))
        conn.execute(t.consumers.insert().values(uuid=consumer, project_id=project,
                                                 user_id=user, generation=generation))
    db.write(plant)


def _allocations_of(conn, consumer: str) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(t.allocations)
                        .where(t.allocations.c.consumer_id == consumer)).scalar_one()


def test_an_empty_consumer_given_allocations_first_is_kept(db, world):
    consumer = str(uuidlib.uuid4())
    _empty_consumer(db, consumer, 4)
    fn, writes, rules = _write(world, consumer, generation=4)
    with db.transaction(write=True) as conn:
        fn(conn, writes, rules)
        fix = Waiting(db, ("FOR UPDATE",), audit_fixes.delete_empty_consumers,
                      [{"consumer": consumer, "generation": 4}]).start()
        fix.wait_until_blocked()
    assert fix.join() == []
    assert db.read(_allocations_of, consumer) == 1


def test_an_empty_consumer_deleted_first_fails_its_writer(db, world):
    consumer = str(uuidlib.uuid4())
    _empty_consumer(db, consumer, 4)
    with db.transaction(write=True) as conn:
        assert audit_fixes.delete_empty_consumers(
            conn, [{"consumer": consumer, "generation": 4}]) == [consumer]
        # PostgreSQL, MySQL: its generation compare-and-set waits for the delete
        writer = Waiting(db, ("UPDATE CONSUMERS",), *_write(world, consumer, generation=4),
                         retrying=True).start()
        writer.wait_until_blocked()
    with pytest.raises(exceptions.Conflict):  # as if its allocations had been deleted
        writer.join()
    assert db.read(_allocations_of, consumer) == 0


def test_only_at_the_generation_read_and_without_allocations(db, world):
    moved, used, empty = (str(uuidlib.uuid4()) for _ in range(3))
    for consumer in (moved, used, empty):
        _empty_consumer(db, consumer, 0)
    db.write(lambda conn: conn.execute(t.consumers.update().values(generation=1)
                                       .where(t.consumers.c.uuid == moved)))
    db.write(lambda conn: conn.execute(t.allocations.insert().values(
        resource_provider_id=sa.select(t.resource_providers.c.id).scalar_subquery(),
        consumer_id=used, used=1, resource_class_id=sa.select(t.resource_classes.c.id)
        .where(t.resource_classes.c.name == "VCPU").scalar_subquery())))
    items = [{"consumer": c, "generation": 0} for c in (moved, used, empty)]
    assert db.write(audit_fixes.delete_empty_consumers, items) == [empty]
    assert db.write(audit_fixes.delete_empty_consumers, items) == []


# -- many writers, and the fix again and again ---------------------------------------

WRITERS, WRITES = 4, 30
BOUND = 180.0  # seconds: a guard against a hang, not a timing assertion


def test_writers_and_repeated_fixes(db, world, retries, record_property):
    """Writers create consumers for a few projects and users, and delete
    them again (leaving their project or user unused) but for their last
    one, while the fix runs again and again. No write fails; no consumer
    ever points at a missing project or user; the fix did delete rows
    meanwhile."""
    done = threading.Event()
    errors: list[BaseException] = []
    deleted: list[str] = []
    kinds = list(audit_db.FIXABLE)
    for n in range(WRITERS):
        world.rp(f"host-{n}", inv={"VCPU": 100000})

    def writer(n: int) -> None:
        rnd = random.Random(n)
        try:
            for i in range(WRITES):
                consumer = str(uuidlib.uuid4())
                # a provider of its own: the race is on the projects and users
                fn, writes, rules = _write(world, consumer, project=f"race-p{rnd.randrange(6)}",
                                           user=f"race-u{rnd.randrange(4)}", host=f"host-{n}")
                db.write_retrying(allocations_db.WriteRaced, TRIES, fn, writes, rules)
                if i < WRITES - 1:
                    db.write(allocations_db.delete_for_consumer, consumer)
        except BaseException as exc:  # reported below
            errors.append(exc)

    def fixer() -> None:
        try:
            while not done.is_set():
                found = db.snapshot_read(audit_db.findings, kinds, 1000, 30)
                fixed = cli_audit.fix(db, found, kinds, 1000, 30)
                deleted.extend(x for ids in fixed.values() for x in ids)
                assert db.read(_dangling) == []
        except BaseException as exc:
            errors.append(exc)

    fixing = threading.Thread(target=fixer, daemon=True)
    writing = [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(WRITERS)]
    fixing.start()
    for thread in writing:
        thread.start()
    for thread in writing:
        thread.join(BOUND)
    done.set()
    fixing.join(BOUND)
    assert not fixing.is_alive() and not any(w.is_alive() for w in writing), "a hang"
    assert errors == []
    assert db.read(_dangling) == []
    assert any(x.startswith("race-") for x in deleted), "the fix never deleted a row"
    record_property("retries", retries)  # whole writes run again: a deleted owner, a deadlock
    # every consumer written and kept still has its allocation
    kept = db.read(lambda conn: conn.execute(
        sa.select(sa.func.count()).select_from(t.consumers)).scalar_one())
    assert db.read(lambda conn: conn.execute(
        sa.select(sa.func.count(sa.distinct(t.allocations.c.consumer_id)))).scalar_one()) == kept
