"""Schema migrations from every older revision, the block-on-null guards, and
the online data migrations that clear them."""

import uuid

import pytest
import sqlalchemy as sa

from placer.db import data_migrations, schema_migrations, tables
from placer.db import engine as db_engine
from tests.helpers.api import make_conf

INITIAL, ROOT_GUARD, CONSUMER_GUARD, CONSUMER_TYPES, HEAD = (
    "b4ed3a175331", "611cd6dffd7b", "b5c396305c25", "422ece571366", "a082b8bb98d0")

rps, allocs, consumers = tables.resource_providers, tables.allocations, tables.consumers
projects, users = tables.projects, tables.users


@pytest.fixture
def engine(empty_engine):
    return empty_engine


@pytest.fixture
def db(engine):
    return db_engine.Database(engine)


def _add_providers(conn, count: int, rooted: bool = False) -> list[int]:
    ids = []
    for n in range(count):
        ids.append(conn.execute(rps.insert().values(
            uuid=str(uuid.uuid4()), name=f"rp-{uuid.uuid4().hex[:8]}-{n}", generation=0,
        )).inserted_primary_key[0])
    if rooted:
        conn.execute(rps.update().where(rps.c.id.in_(ids)).values(root_provider_id=rps.c.id))
    return ids


def _add_allocations(conn, rp_id: int, consumer_uuid: str, classes=(0,)) -> None:
    conn.execute(allocs.insert(), [
        {"resource_provider_id": rp_id, "consumer_id": consumer_uuid,
         "resource_class_id": rc, "used": 1} for rc in classes])


def _add_consumer(conn, consumer_uuid: str, project="p1", user="u1") -> None:
    project_id = conn.execute(projects.insert().values(external_id=project)
                              ).inserted_primary_key[0]
    user_id = conn.execute(users.insert().values(external_id=user)).inserted_primary_key[0]
    conn.execute(consumers.insert().values(uuid=consumer_uuid, project_id=project_id,
                                           user_id=user_id))


def test_head_revision_is_the_references():
    assert schema_migrations.head() == HEAD


def test_empty_database_has_no_version_until_migrated(engine):
    assert schema_migrations.version(engine) is None
    schema_migrations.upgrade(engine)
    assert schema_migrations.version(engine) == HEAD


@pytest.mark.parametrize("start", [INITIAL, ROOT_GUARD, CONSUMER_GUARD, CONSUMER_TYPES])
def test_upgrade_from_older_revision_keeps_data(engine, start):
    schema_migrations.upgrade(engine, start)
    assert schema_migrations.version(engine) == start
    consumer = str(uuid.uuid4())
    with engine.begin() as conn:
        (rp_id,) = _add_providers(conn, 1, rooted=True)
        _add_consumer(conn, consumer)
        _add_allocations(conn, rp_id, consumer, classes=(0, 1))
    schema_migrations.upgrade(engine)
    assert schema_migrations.version(engine) == HEAD
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(allocs)).scalar() == 2
        row = conn.execute(sa.select(consumers.c.uuid, consumers.c.generation,
                                     consumers.c.consumer_type_id)).one()
    assert tuple(row) == (consumer, 0, None)
    names = {i["name"] for i in sa.inspect(engine).get_indexes("inventories")}
    assert "inventories_resource_provider_id_idx" not in names


def test_stamped_database_upgrades_from_its_stamp(engine):
    """A database brought under control with ``db stamp`` upgrades from there."""
    schema_migrations.upgrade(engine, CONSUMER_GUARD)
    schema_migrations.stamp(engine, INITIAL)
    assert schema_migrations.version(engine) == INITIAL
    # b4ed..b5c3 only check data, so re-running them over the schema is harmless
    schema_migrations.upgrade(engine)
    assert schema_migrations.version(engine) == HEAD
    assert "consumer_types" in sa.inspect(engine).get_table_names()


def test_stamp_head_without_running_migrations(engine):
    schema_migrations.upgrade(engine, CONSUMER_TYPES)
    schema_migrations.stamp(engine, "head")
    assert schema_migrations.version(engine) == HEAD
    # nothing ran: the redundant index is still there
    names = {i["name"] for i in sa.inspect(engine).get_indexes("resource_providers")}
    assert "resource_providers_uuid_idx" in names


def test_null_root_provider_blocks_upgrade_until_migrated(engine, db, tmp_path):
    schema_migrations.upgrade(engine, INITIAL)
    with engine.begin() as conn:
        _add_providers(conn, 2)
    with pytest.raises(Exception, match="root provider id") as err:
        schema_migrations.upgrade(engine)
    assert "placement-manage db online_data_migrations" in str(err.value)
    assert schema_migrations.version(engine) == INITIAL

    conf = make_conf(tmp_path)
    assert db.write(data_migrations.set_root_provider_ids, conf, 50) == (2, 2)
    schema_migrations.upgrade(engine)
    assert schema_migrations.version(engine) == HEAD


def test_allocation_without_consumer_blocks_upgrade_until_migrated(engine, db, tmp_path):
    schema_migrations.upgrade(engine, INITIAL)
    with engine.begin() as conn:
        (rp_id,) = _add_providers(conn, 1, rooted=True)
        _add_allocations(conn, rp_id, str(uuid.uuid4()))
    with pytest.raises(Exception, match="missing a consumer record") as err:
        schema_migrations.upgrade(engine)
    assert "placement-manage db online_data_migrations" in str(err.value)
    # the whole upgrade is one transaction: nothing was recorded
    assert schema_migrations.version(engine) == INITIAL

    conf = make_conf(tmp_path)
    assert db.write(data_migrations.create_incomplete_consumers, conf, 50) == (1, 1)
    schema_migrations.upgrade(engine)
    assert schema_migrations.version(engine) == HEAD


# -- the online data migrations themselves, at head ---------------------------

@pytest.fixture
def head_db(engine, db):
    schema_migrations.upgrade(engine)
    return db


def test_set_root_provider_ids_in_batches(head_db, tmp_path):
    conf = make_conf(tmp_path)
    with head_db.transaction(write=True) as conn:
        orphans = _add_providers(conn, 5)
        (rooted,) = _add_providers(conn, 1, rooted=True)
        (child,) = _add_providers(conn, 1)
        conn.execute(rps.update().where(rps.c.id == child)
                     .values(parent_provider_id=rooted, root_provider_id=rooted))
    results = [head_db.write(data_migrations.set_root_provider_ids, conf, 2)
               for _ in range(4)]
    assert results == [(2, 2), (2, 2), (1, 1), (0, 0)]
    with head_db.transaction() as conn:
        roots = dict(conn.execute(sa.select(rps.c.id, rps.c.root_provider_id)).all())
    assert {rp: roots[rp] for rp in orphans} == {rp: rp for rp in orphans}
    assert roots[child] == rooted
    assert head_db.read(data_migrations.count_missing_root_ids) == 0


def test_create_incomplete_consumers_one_per_consumer(head_db, tmp_path):
    conf = make_conf(tmp_path, placement={"incomplete_consumer_project_id": "lost-project",
                                          "incomplete_consumer_user_id": "lost-user"})
    complete, lost_a, lost_b = (str(uuid.uuid4()) for _ in range(3))
    with head_db.transaction(write=True) as conn:
        (rp_id,) = _add_providers(conn, 1, rooted=True)
        _add_consumer(conn, complete)
        _add_allocations(conn, rp_id, complete)
        _add_allocations(conn, rp_id, lost_a, classes=(0, 1, 2))  # three rows, one consumer
        _add_allocations(conn, rp_id, lost_b)
    assert head_db.read(data_migrations.count_incomplete_consumers) == 2

    assert head_db.write(data_migrations.create_incomplete_consumers, conf, 1) == (1, 1)
    assert head_db.read(data_migrations.count_incomplete_consumers) == 1
    assert head_db.write(data_migrations.create_incomplete_consumers, conf, 50) == (1, 1)
    assert head_db.write(data_migrations.create_incomplete_consumers, conf, 50) == (0, 0)

    with head_db.transaction() as conn:
        owners = dict(conn.execute(
            sa.select(consumers.c.uuid, projects.c.external_id + "/" + users.c.external_id)
            .join(projects, projects.c.id == consumers.c.project_id)
            .join(users, users.c.id == consumers.c.user_id)).all())
        generations = set(conn.execute(sa.select(consumers.c.generation)).scalars())
        project_rows = conn.execute(sa.select(sa.func.count()).select_from(projects)
                                    .where(projects.c.external_id == "lost-project")).scalar()
    assert owners == {complete: "p1/u1", lost_a: "lost-project/lost-user",
                      lost_b: "lost-project/lost-user"}
    assert generations == {0}
    assert project_rows == 1  # the incomplete project was made once and reused


def test_incomplete_consumers_use_existing_project_and_default_ids(head_db, tmp_path):
    conf = make_conf(tmp_path)
    default = conf.placement.incomplete_consumer_project_id
    lost = str(uuid.uuid4())
    with head_db.transaction(write=True) as conn:
        project_id = conn.execute(projects.insert().values(external_id=default)
                                  ).inserted_primary_key[0]
        (rp_id,) = _add_providers(conn, 1, rooted=True)
        _add_allocations(conn, rp_id, lost)
    assert default == "00000000-0000-0000-0000-000000000000"
    assert head_db.write(data_migrations.create_incomplete_consumers, conf, 10) == (1, 1)
    with head_db.transaction() as conn:
        assert conn.execute(sa.select(consumers.c.project_id)).scalar() == project_id
        assert conn.execute(sa.select(sa.func.count()).select_from(projects)).scalar() == 1
