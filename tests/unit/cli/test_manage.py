"""placement-manage, run in-process: the reference's output and exit codes.

The expected texts were taken from running openstack-placement 16.0.0's own
placement-manage against throw-away databases.
"""

import contextlib
import importlib.metadata
import uuid

import pytest
import sqlalchemy as sa

from placer.cli import api, manage, status
from placer.db import data_migrations, schema_migrations, tables
from placer.db import engine as db_engine
from tests.helpers import cli
from tests.helpers.databases import ThrowAwayDatabase

HEAD = "a082b8bb98d0"
INITIAL = "b4ed3a175331"
TABLE_HEADER = ("+-----------------------------+-------------+-----------+\n"
                "|          Migration          | Total Found | Completed |\n"
                "+-----------------------------+-------------+-----------+\n")


@pytest.fixture
def target(backend, tmp_path):
    """An empty database on ``backend`` and a placement.conf pointing at it."""
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    conf_file = tmp_path / "placement.conf"
    conf_file.write_text(f"[placement_database]\nconnection = {throw_away.url}\n")
    engine = db_engine.create_engine(throw_away.url)
    target = type("Target", (), {"engine": engine, "conf": str(conf_file),
                                 "dir": str(tmp_path)})
    yield target
    engine.dispose()
    throw_away.drop()


run = cli.runner(manage.main)


def _seed_old_data(engine, orphans: int, lost_consumers: int) -> None:
    """At the initial revision: providers without a root, allocations without
    a consumers row (what pre-Rocky placement left behind)."""
    rps = tables.resource_providers
    with engine.begin() as conn:
        ids = [conn.execute(rps.insert().values(uuid=str(uuid.uuid4()), name=f"rp{n}",
                                                generation=0)).inserted_primary_key[0]
               for n in range(max(orphans, 1))]
        if not orphans:
            conn.execute(rps.update().values(root_provider_id=rps.c.id))
        for _ in range(lost_consumers):
            conn.execute(tables.allocations.insert().values(
                resource_provider_id=ids[0], consumer_id=str(uuid.uuid4()),
                resource_class_id=0, used=1))


# -- no database needed -------------------------------------------------------

def test_bare_command_prints_help_and_exits_1(capsys, tmp_path):
    conf = tmp_path / "p.conf"
    conf.write_text("[placement_database]\nconnection = sqlite://\n")
    code, out, _ = run(capsys, "--config-file", str(conf))
    assert code == 1
    assert out.startswith("usage: placement-manage [-h] [--config-dir DIR] [--config-file PATH]")
    # explain, capacity, scores and audit: Placer's own
    assert "{db,explain,capacity,scores,audit}" in out and "Available DB commands" in out


def test_db_category_prints_its_help_and_exits_0(capsys, tmp_path):
    conf = tmp_path / "p.conf"
    conf.write_text("[placement_database]\nconnection = sqlite://\n")
    code, out, _ = run(capsys, "--config-file", str(conf), "db")
    assert code == 0
    assert out.startswith("usage: placement-manage db [-h]\n"
                          "                           {sync,version,stamp,online_data_migrations}")
    assert "    sync                Sync the database to the current version.\n" in out
    assert "    version             Report the current database version.\n" in out
    assert "    stamp               Stamp the revision table with the given version.\n" in out
    assert "                        Run the online data migrations.\n" in out


@pytest.mark.parametrize("args,message", [
    (["db", "bogus"], "placement-manage db: error: argument "
                      "{sync,version,stamp,online_data_migrations}: invalid choice: 'bogus'"),
    (["db", "stamp"], "placement-manage db stamp: error: the following arguments are "
                      "required: version"),
])
def test_usage_errors_exit_2(capsys, tmp_path, args, message):
    conf = tmp_path / "p.conf"
    conf.write_text("[placement_database]\nconnection = sqlite://\n")
    code, out, err = run(capsys, "--config-file", str(conf), *args)
    assert code == 2
    assert message in err
    assert out == ""


def test_missing_connection_exits_1(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("OS_PLACEMENT_CONFIG_DIR", str(tmp_path))  # no placement.conf there
    empty = tmp_path / "empty.conf"
    empty.write_text("[DEFAULT]\n")
    code, out, err = run(capsys, "--config-file", str(empty), "db", "version")
    assert code == 1
    assert "value required for option connection in group [placement_database]" in err


def test_missing_config_file_exits_1(capsys, tmp_path):
    code, _, err = run(capsys, "--config-file", str(tmp_path / "nope.conf"), "db", "version")
    assert code == 1
    assert "Failed to find some config files" in err


@pytest.mark.parametrize("value", ["0", "-3", "abc"])
def test_bad_max_count_exits_127(capsys, tmp_path, value):
    conf = tmp_path / "p.conf"
    conf.write_text("[placement_database]\nconnection = sqlite://\n")
    code, out, _ = run(capsys, "--config-file", str(conf), "db", "online_data_migrations",
                       "--max-count", value)
    assert (code, out) == (127, "Must supply a positive value for max_count\n")


@pytest.mark.parametrize("main", [manage.main, status.main, api.main])
def test_version_option_is_the_installed_version(capsys, tmp_path, main):
    conf = tmp_path / "p.conf"
    conf.write_text("[placement_database]\nconnection = sqlite://\n")
    with contextlib.suppress(SystemExit):  # argparse's own exit, for placement-api
        code = main(["--config-file", str(conf), "--version"])
        assert code == 0
    out = capsys.readouterr().out
    assert out == f"{importlib.metadata.version('openstack-placement')}\n"
    assert out.startswith("1!")  # the epoch: docs/operator/upgrade.md#versions


# -- db sync / version / stamp ------------------------------------------------

def test_sync_then_version(capsys, target):
    assert run(capsys, "--config-file", target.conf, "db", "version") == (0, "None\n", "")
    assert run(capsys, "--config-file", target.conf, "db", "sync") == (0, "", "")
    assert run(capsys, "--config-file", target.conf, "db", "version") == (0, f"{HEAD}\n", "")
    assert "consumer_types" in sa.inspect(target.engine).get_table_names()
    # idempotent
    assert run(capsys, "--config-file", target.conf, "db", "sync") == (0, "", "")


def test_config_found_through_os_placement_config_dir(capsys, target, monkeypatch):
    monkeypatch.setenv("OS_PLACEMENT_CONFIG_DIR", target.dir)
    assert run(capsys, "db", "sync") == (0, "", "")
    assert run(capsys, "db", "version") == (0, f"{HEAD}\n", "")


def test_stamp_sets_the_revision_without_migrating(capsys, target):
    schema_migrations.upgrade(target.engine, INITIAL)
    assert run(capsys, "--config-file", target.conf, "db", "stamp", HEAD) == (0, "", "")
    assert run(capsys, "--config-file", target.conf, "db", "version") == (0, f"{HEAD}\n", "")
    assert "consumer_types" not in sa.inspect(target.engine).get_table_names()


def test_stamp_unknown_revision_exits_1(capsys, target):
    code, out, err = run(capsys, "--config-file", target.conf, "db", "stamp", "bogus")
    assert code == 1
    assert "Can't locate revision identified by 'bogus'" in err
    assert schema_migrations.version(target.engine) is None


def test_sync_refuses_while_online_migrations_are_due(capsys, target):
    schema_migrations.upgrade(target.engine, INITIAL)
    _seed_old_data(target.engine, orphans=1, lost_consumers=0)
    code, out, err = run(capsys, "--config-file", target.conf, "db", "sync")
    assert code == 1
    assert "root provider id" in err and "online_data_migrations" in err
    assert schema_migrations.version(target.engine) == INITIAL


# -- db online_data_migrations ------------------------------------------------

def test_online_migrations_with_nothing_to_do(capsys, target):
    schema_migrations.upgrade(target.engine)
    code, out, err = run(capsys, "--config-file", target.conf, "db", "online_data_migrations")
    assert code == 0
    assert out == ("Running batches of 50 until complete\n" + TABLE_HEADER +
                   "|    set_root_provider_ids    |      0      |     0     |\n"
                   "| create_incomplete_consumers |      0      |     0     |\n"
                   "+-----------------------------+-------------+-----------+\n")


def test_online_migrations_limited_runs_exit_1_until_done(capsys, target):
    """The reference's exact sequence for 3 rootless providers and 3
    allocations without consumers, with --max-count 2."""
    schema_migrations.upgrade(target.engine, INITIAL)
    _seed_old_data(target.engine, orphans=3, lost_consumers=3)
    args = ["--config-file", target.conf, "db", "online_data_migrations", "--max-count", "2"]

    code, out, _ = run(capsys, *args)
    assert code == 1
    assert out == ("2 rows matched query set_root_provider_ids, 2 migrated\n"
                   "+-----------------------+-------------+-----------+\n"
                   "|       Migration       | Total Found | Completed |\n"
                   "+-----------------------+-------------+-----------+\n"
                   "| set_root_provider_ids |      2      |     2     |\n"
                   "+-----------------------+-------------+-----------+\n")
    code, out, _ = run(capsys, *args)
    assert code == 1
    assert out == ("1 rows matched query set_root_provider_ids, 1 migrated\n"
                   "1 rows matched query create_incomplete_consumers, 1 migrated\n"
                   + TABLE_HEADER +
                   "|    set_root_provider_ids    |      1      |     1     |\n"
                   "| create_incomplete_consumers |      1      |     1     |\n"
                   "+-----------------------------+-------------+-----------+\n")
    code, out, _ = run(capsys, *args)
    assert code == 1
    assert out.startswith("2 rows matched query create_incomplete_consumers, 2 migrated\n")
    assert "|    set_root_provider_ids    |      0      |     0     |\n" in out
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "rows matched" not in out

    assert run(capsys, "--config-file", target.conf, "db", "sync") == (0, "", "")
    assert schema_migrations.version(target.engine) == HEAD


def test_online_migrations_unlimited_runs_batches_of_50(capsys, target):
    schema_migrations.upgrade(target.engine, INITIAL)
    _seed_old_data(target.engine, orphans=120, lost_consumers=2)
    code, out, _ = run(capsys, "--config-file", target.conf, "db", "online_data_migrations")
    assert code == 0
    assert out == ("Running batches of 50 until complete\n"
                   "50 rows matched query set_root_provider_ids, 50 migrated\n"
                   "50 rows matched query set_root_provider_ids, 50 migrated\n"
                   "20 rows matched query set_root_provider_ids, 20 migrated\n"
                   "2 rows matched query create_incomplete_consumers, 2 migrated\n"
                   + TABLE_HEADER +
                   "|    set_root_provider_ids    |     120     |    120    |\n"
                   "| create_incomplete_consumers |      2      |     2     |\n"
                   "+-----------------------------+-------------+-----------+\n")
    db = db_engine.Database(target.engine)
    assert db.read(data_migrations.count_missing_root_ids) == 0
    assert db.read(data_migrations.count_incomplete_consumers) == 0


def _broken(conn, conf, batch_size):
    raise RuntimeError("boom")


def test_failing_migration_exits_2(capsys, target, monkeypatch):
    schema_migrations.upgrade(target.engine)
    monkeypatch.setattr(data_migrations, "MIGRATIONS",
                        (_broken, data_migrations.create_incomplete_consumers))
    code, out, _ = run(capsys, "--config-file", target.conf, "db", "online_data_migrations")
    assert code == 2
    assert "Error attempting to run <function _broken" in out
    assert "|           _broken           |      0      |     0     |" in out
    assert out.endswith("Some migrations failed unexpectedly. Check log for details.\n")


def test_failing_migration_with_progress_elsewhere_exits_1_when_limited(
        capsys, target, monkeypatch):
    """With --max-count, others' progress may unblock the failing one: exit 1."""
    schema_migrations.upgrade(target.engine, INITIAL)
    _seed_old_data(target.engine, orphans=0, lost_consumers=2)
    monkeypatch.setattr(data_migrations, "MIGRATIONS",
                        (_broken, data_migrations.create_incomplete_consumers))
    code, out, _ = run(capsys, "--config-file", target.conf, "db", "online_data_migrations",
                       "--max-count", "10")
    assert code == 1
    assert "2 rows matched query create_incomplete_consumers, 2 migrated" in out
    assert "Some migrations failed" not in out
