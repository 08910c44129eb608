"""placement-status upgrade check, run in-process: the reference's table,
texts and exit codes (0 success, 1 warning, 2 failure, 255 error)."""

import json
import uuid

import pytest

from placer.cli import manage, status
from placer.db import engine as db_engine
from placer.db import schema_migrations, scores, tables
from tests.helpers import cli
from tests.helpers.databases import ThrowAwayDatabase

ALL_GOOD = """\
+-------------------------------------------+
| Upgrade Check Results                     |
+-------------------------------------------+
| Check: Missing Root Provider IDs          |
| Result: Success                           |
| Details: None                             |
+-------------------------------------------+
| Check: Incomplete Consumers               |
| Result: Success                           |
| Details: None                             |
+-------------------------------------------+
| Check: Policy File JSON to YAML Migration |
| Result: Success                           |
| Details: None                             |
+-------------------------------------------+
| Check: Candidate Order Scores             |
| Result: Success                           |
| Details: None                             |
+-------------------------------------------+
"""

ROOTS_AND_CONSUMERS = """\
+----------------------------------------------------------------------+
| Upgrade Check Results                                                |
+----------------------------------------------------------------------+
| Check: Missing Root Provider IDs                                     |
| Result: Failure                                                      |
| Details: There is at least one resource provider table record which  |
|   misses its root provider id. Run the "placement-manage db          |
|   online_data_migrations" command.                                   |
+----------------------------------------------------------------------+
| Check: Incomplete Consumers                                          |
| Result: Warning                                                      |
| Details: There are 3 incomplete consumers table records for existing |
|   allocations. Run the "placement-manage db                          |
|   online_data_migrations" command.                                   |
+----------------------------------------------------------------------+
| Check: Policy File JSON to YAML Migration                            |
| Result: Success                                                      |
| Details: None                                                        |
+----------------------------------------------------------------------+
| Check: Candidate Order Scores                                        |
| Result: Success                                                      |
| Details: None                                                        |
+----------------------------------------------------------------------+
"""


@pytest.fixture
def target(backend, tmp_path):
    """A migrated database on ``backend`` and a placement.conf for it."""
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    engine = db_engine.create_engine(throw_away.url)
    schema_migrations.upgrade(engine)
    conf_file = tmp_path / "placement.conf"
    conf_file.write_text(f"[placement_database]\nconnection = {throw_away.url}\n")
    yield type("Target", (), {"engine": engine, "conf": str(conf_file), "dir": tmp_path})
    engine.dispose()
    throw_away.drop()


run = cli.runner(status.main)


def _seed(engine, rootless: int, lost_consumers: int, allocations_each: int = 2) -> None:
    rps = tables.resource_providers
    with engine.begin() as conn:
        rp_id = conn.execute(rps.insert().values(uuid=str(uuid.uuid4()), name="rooted",
                                                 generation=0)).inserted_primary_key[0]
        conn.execute(rps.update().values(root_provider_id=rps.c.id))
        for n in range(rootless):
            conn.execute(rps.insert().values(uuid=str(uuid.uuid4()), name=f"old{n}",
                                             generation=0))
        for _ in range(lost_consumers):
            consumer = str(uuid.uuid4())
            for rc in range(allocations_each):  # counted once per consumer
                conn.execute(tables.allocations.insert().values(
                    resource_provider_id=rp_id, consumer_id=consumer,
                    resource_class_id=rc, used=1))


def test_clean_database_passes(capsys, target):
    assert run(capsys, "--config-file", target.conf, "upgrade", "check") == (0, ALL_GOOD, "")


def test_missing_roots_fail_and_incomplete_consumers_warn(capsys, target):
    _seed(target.engine, rootless=2, lost_consumers=3)
    code, out, _ = run(capsys, "--config-file", target.conf, "upgrade", "check")
    assert (code, out) == (2, ROOTS_AND_CONSUMERS)


def test_incomplete_consumers_alone_are_a_warning(capsys, target):
    _seed(target.engine, rootless=0, lost_consumers=1)
    code, out, _ = run(capsys, "--config-file", target.conf, "upgrade", "check")
    assert code == 1
    assert ("| Check: Incomplete Consumers                                          |\n"
            "| Result: Warning                                                      |\n"
            "| Details: There are 1 incomplete consumers table records for existing |\n"
            ) in out


def test_json_policy_file_fails(capsys, target):
    policy_file = target.dir / "policy.json"
    policy_file.write_text('{"placement:resource_classes:list": ""}')
    extra = target.dir / "policy.conf"
    extra.write_text(f"[oslo_policy]\npolicy_file = {policy_file}\n")
    code, out, _ = run(capsys, "--config-file", target.conf, "--config-file", str(extra),
                       "upgrade", "check")
    assert code == 2
    assert "| Check: Policy File JSON to YAML Migration" in out
    assert "| Details: Your policy file is JSON-formatted which is deprecated. You |" in out
    assert "``oslopolicy-convert-json-to-yaml``" in out


def test_yaml_policy_file_passes(capsys, target):
    policy_file = target.dir / "policy.yaml"
    policy_file.write_text('"placement:resource_classes:list": ""\n')
    extra = target.dir / "policy.conf"
    extra.write_text(f"[oslo_policy]\npolicy_file = {policy_file}\n")
    code, out, _ = run(capsys, "--config-file", target.conf, "--config-file", str(extra),
                       "upgrade", "check")
    assert (code, out) == (0, ALL_GOOD)


def test_json_output(capsys, target):
    """--json is honoured (the reference accepts it but prints the table)."""
    _seed(target.engine, rootless=0, lost_consumers=2)
    with target.engine.begin() as conn:
        scores.rebuild(conn)
    code, out, _ = run(capsys, "--config-file", target.conf, "upgrade", "check", "--json")
    assert code == 1
    assert json.loads(out) == {"name": "Upgrade Check Results", "checks": [
        {"check": "Missing Root Provider IDs", "result": 0, "details": None},
        {"check": "Incomplete Consumers", "result": 1,
         "details": "There are 2 incomplete consumers table records for existing "
                    "allocations. Run the \"placement-manage db online_data_migrations\" "
                    "command."},
        {"check": "Policy File JSON to YAML Migration", "result": 0, "details": None},
        {"check": "Candidate Order Scores", "result": 0, "details": None}]}
    # and the table again without it: nothing global left behind
    code, out, _ = run(capsys, "--config-file", target.conf, "upgrade", "check")
    assert out.startswith("+---")


def test_config_found_through_os_placement_config_dir(capsys, target, monkeypatch):
    monkeypatch.setenv("OS_PLACEMENT_CONFIG_DIR", str(target.dir))
    assert run(capsys, "upgrade", "check") == (0, ALL_GOOD, "")


def test_unmigrated_database_is_an_error_255(capsys, backend, tmp_path):
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    try:
        conf_file = tmp_path / "placement.conf"
        conf_file.write_text(f"[placement_database]\nconnection = {throw_away.url}\n")
        code, out, _ = run(capsys, "--config-file", str(conf_file), "upgrade", "check")
    finally:
        throw_away.drop()
    assert code == 255
    assert out.startswith("Error:\nTraceback (most recent call last):")
    assert "resource_providers" in out


@pytest.mark.parametrize("args,message", [
    ([], "placement-status: error: the following arguments are required: command"),
    (["upgrade"], "placement-status upgrade: error: the following arguments are required: "
                  "check"),
])
def test_usage_errors_exit_2(capsys, tmp_path, args, message):
    conf = tmp_path / "p.conf"
    conf.write_text("[placement_database]\nconnection = sqlite://\n")
    code, out, err = run(capsys, "--config-file", str(conf), *args)
    assert (code, out) == (2, "")
    assert message in err


def test_missing_connection_exits_1(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("OS_PLACEMENT_CONFIG_DIR", str(tmp_path))
    empty = tmp_path / "empty.conf"
    empty.write_text("[DEFAULT]\n")
    code, _, err = run(capsys, "--config-file", str(empty), "upgrade", "check")
    assert code == 1
    assert "value required for option connection in group [placement_database]" in err


def _scores_check(out: str) -> str:
    return out[out.index("| Check: Candidate Order Scores"):]


def test_stale_scores_warn_until_rebuilt(capsys, target):
    """Rows written without keeping the scores (an API node in id order, the
    reference, SQL): a warning under spread, none under id, which reads none."""
    _seed(target.engine, rootless=0, lost_consumers=0)
    with target.engine.begin() as conn:
        conn.execute(tables.allocations.insert().values(
            resource_provider_id=1, consumer_id=str(uuid.uuid4()), resource_class_id=0,
            used=1))
    spread = target.dir / "order.conf"
    spread.write_text("[placer]\ncandidate_order = spread\n")
    code, out, _ = run(capsys, "--config-file", target.conf, "upgrade", "check")
    assert "| Result: Success" in _scores_check(out)
    code, out, _ = run(capsys, "--config-file", target.conf, "--config-file", str(spread),
                       "upgrade", "check")
    assert code == 1
    assert "| Result: Warning" in _scores_check(out)
    details = " ".join(_scores_check(out).replace("|", " ").split())
    assert "The scores of 1 provider trees do not match" in details
    assert "placement-api makes them exact when it starts" in details
    assert manage.main(["--config-file", target.conf, "scores", "rebuild"]) == 0
    assert capsys.readouterr().out == "Rebuilt the scores of 1 trees.\n"
    code, out, _ = run(capsys, "--config-file", target.conf, "--config-file", str(spread),
                       "upgrade", "check")
    assert "| Result: Success" in _scores_check(out)


def test_dropped_scores_warn_only_when_an_order_needs_them(capsys, target):
    assert manage.main(["--config-file", target.conf, "scores", "drop"]) == 0
    assert "placer_alembic_version" in capsys.readouterr().out
    assert run(capsys, "--config-file", target.conf, "upgrade", "check") == (0, ALL_GOOD, "")
    extra = target.dir / "order.conf"
    extra.write_text("[placer]\ncandidate_order = pack\n")
    code, out, _ = run(capsys, "--config-file", target.conf, "--config-file", str(extra),
                       "upgrade", "check")
    assert code == 1
    assert "candidate_order is pack but the score tables are missing" in " ".join(
        out.replace("|", " ").split())
    assert manage.main(["--config-file", target.conf, "scores", "rebuild"]) == 1
    assert "run 'placement-manage db sync'" in capsys.readouterr().out
    # db sync creates them again, filled
    assert manage.main(["--config-file", target.conf, "db", "sync"]) == 0
    assert schema_migrations.placer_version(target.engine) == schema_migrations.placer_head()
    assert run(capsys, "--config-file", target.conf, "--config-file", str(extra),
               "upgrade", "check")[0] == 0
