"""placement-manage audit: GET /audit's findings from the configured database,
as tables or the API's JSON; --fix deletes empty consumers and unused
projects and users, and nothing else; exit codes 0 / 3 / 4 / 1 as
nova-manage placement audit's; --nova hands over to cli/audit_nova.py."""

import json
import sys
import types
import uuid as uuidlib

import pytest
import sqlalchemy as sa

import placer.cli
from placer.cli import audit as cli_audit
from placer.cli import manage
from placer.db import audit as audit_db
from placer.db import engine as db_engine
from placer.db import tables as t
from tests.helpers import cli

run = cli.runner(manage.main)

EMPTY_A, EMPTY_B = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"


@pytest.fixture
def cloud(backend, tmp_path):
    """host-a and host-b with inventory, two consumers using them; a
    placement.conf naming the database; ``cloud.db`` on it, for the rows the
    API cannot make."""
    with cli.cloud(backend, tmp_path) as (env, url):
        env.rp("host-a", inv={"VCPU": 8, "MEMORY_MB": 4096})
        env.rp("host-b", inv={"VCPU": 8, "MEMORY_MB": 4096})
        env.sound = [env.consume({"host-a": {"VCPU": 2, "MEMORY_MB": 512}}),
                     env.consume({"host-b": {"VCPU": 1, "MEMORY_MB": 256}})]
        conf_file = tmp_path / "placement.conf"
        conf_file.write_text(f"[placement_database]\nconnection = {url}\n")
        env.conf = str(conf_file)
        env.db = db_engine.Database(db_engine.create_engine(url))
        try:
            yield env
        finally:
            env.db.dispose()


def _rows(conn, table, *rows):
    conn.execute(table.insert(), list(rows))


def _plant_fixable(conn):
    """Two empty consumers (one of a project and user of their own), an
    unused project and an unused user."""
    _rows(conn, t.projects, {"id": 9001, "external_id": "orphan-project"},
          {"id": 9002, "external_id": "lonely-project"})
    _rows(conn, t.users, {"id": 9001, "external_id": "orphan-user"},
          {"id": 9002, "external_id": "lonely-user"})
    ids = conn.execute(sa.select(t.projects.c.id, t.users.c.id)
                       .select_from(t.consumers.join(t.projects,
                                                     t.projects.c.id == t.consumers.c.project_id)
                                    .join(t.users, t.users.c.id == t.consumers.c.user_id))
                       .limit(1)).one()
    _rows(conn, t.consumers,
          {"uuid": EMPTY_A, "project_id": ids[0], "user_id": ids[1], "generation": 3},
          {"uuid": EMPTY_B, "project_id": 9002, "user_id": 9002, "generation": 0})


def _state(env):
    """Every sound consumer's allocations and every provider's usages."""
    state = {c: env.api.get(f"/allocations/{c}", version="1.38").json for c in env.sound}
    for name in ("host-a", "host-b"):
        state[name] = env.api.get(f"/resource_providers/{env.uuid[name]}/usages").json
    return state


def _audit(env, *args):
    return run_args(env, "audit", *args)


def run_args(env, *args):
    capsys = env.capsys
    return run(capsys, "--config-file", env.conf, *args)


@pytest.fixture
def env(cloud, capsys):
    cloud.capsys = capsys
    return cloud


def test_nothing_found_exits_0(env):
    code, out, err = _audit(env)
    assert (code, err) == (0, "")
    assert out.startswith("Nothing found: over_capacity 0, ")
    code, out, _ = _audit(env, "--json")
    assert code == 0
    assert json.loads(out) == {"findings": {k: {"count": 0, "items": []}
                                            for k in audit_db.KINDS}}


def test_found_exits_3_with_a_table_per_kind(env):
    env.db.write(_plant_fixable)
    code, out, err = _audit(env)
    assert (code, err) == (3, "")
    assert "empty_consumers: 2 found\n" in out
    assert "unused_projects: 1 found\n" in out and "| orphan-project |" in out
    assert "unused_users: 1 found\n" in out and "| orphan-user |" in out
    assert EMPTY_A in out and EMPTY_B in out
    assert "over_capacity" not in out  # kinds with nothing are left out
    code, out, _ = _audit(env, "--kind", "unused_users", "--limit", "1")
    assert code == 3
    assert out.splitlines()[0] == "unused_users: 1 found"


def test_limit_cuts_the_items_not_the_count(env):
    env.db.write(_plant_fixable)
    code, out, _ = _audit(env, "--kind", "empty_consumers", "--limit", "1")
    assert code == 3
    assert "empty_consumers: 2 found (the first 1 shown)" in out
    assert EMPTY_A in out and EMPTY_B not in out


def test_json_is_the_get_audit_body(env):
    env.db.write(_plant_fixable)
    for args, query in [((), ""), (("--kind", "unused_users", "--kind", "empty_consumers",
                                    "--limit", "1", "--idle-days", "0"),
                                   "?kind=unused_users&kind=empty_consumers&limit=1"
                                   "&idle_days=0")]:
        code, out, _ = _audit(env, "--json", *args)
        assert code == 3
        assert json.loads(out) == _get_audit(env, query)


def _get_audit(env, query: str) -> dict:
    answer = env.api.get(f"/audit{query}", version="1.39")
    assert answer.status_code == 200, answer.text
    return answer.json


def test_fix_deletes_what_is_fixable_and_nothing_else(env):
    env.db.write(_plant_fixable)
    before = _state(env)
    code, out, err = _audit(env, "--fix")
    assert (code, err) == (4, "")
    assert "Fixed: 6 deleted, empty_consumers 2, unused_projects 2, unused_users 2" in out
    for deleted in (EMPTY_A, EMPTY_B, "orphan-project", "lonely-project", "orphan-user",
                    "lonely-user"):
        assert f"| {deleted} " in out
    assert _state(env) == before
    # the project and user of the deleted EMPTY_B went too: a second run finds nothing
    code, out, _ = _audit(env, "--fix")
    assert code == 0 and out.startswith("Nothing found")


def test_fix_json_says_what_it_deleted(env):
    env.db.write(_plant_fixable)
    code, out, _ = _audit(env, "--fix", "--json", "--kind", "empty_consumers")
    assert code == 4
    body = json.loads(out)
    assert body["findings"]["empty_consumers"]["count"] == 2
    assert body["fixed"] == {"empty_consumers": [EMPTY_A, EMPTY_B]}
    # --kind chose: the unused rows are still there
    code, out, _ = _audit(env, "--json")
    assert code == 3
    found = json.loads(out)["findings"]
    assert [i["external_id"] for i in found["unused_projects"]["items"]] == [
        "lonely-project", "orphan-project"]


def test_fix_leaves_alone_what_was_written_after_the_read(env, monkeypatch):
    """Between the read and the fix, a consumer is given allocations, another
    one's generation moves, and consumers come for the unused project and
    user: all of them are left alone, and the exit code says so (3)."""
    env.db.write(_plant_fixable)
    real_fix = cli_audit.fix

    def write_then_fix(db, findings, *args, **kwargs):
        given = env.api.put(f"/allocations/{EMPTY_A}", version="1.28", json={
            "allocations": {env.uuid["host-b"]: {"resources": {"VCPU": 1}}},
            "consumer_generation": 3, "project_id": "p", "user_id": "u"})
        assert given.status_code == 204, given.text
        db.write(lambda conn: conn.execute(
            t.consumers.update().where(t.consumers.c.uuid == EMPTY_B)
            .values(generation=t.consumers.c.generation + 1)))
        newcomer = env.api.put(f"/allocations/{uuidlib.uuid4()}", version="1.28", json={
            "allocations": {env.uuid["host-b"]: {"resources": {"VCPU": 1}}},
            "consumer_generation": None, "project_id": "orphan-project",
            "user_id": "orphan-user"})
        assert newcomer.status_code == 204, newcomer.text
        return real_fix(db, findings, *args, **kwargs)

    monkeypatch.setattr(cli_audit, "fix", write_then_fix)
    code, out, err = _audit(env, "--fix", "--json")
    assert (code, err) == (3, "")
    assert json.loads(out)["fixed"] == {"empty_consumers": [], "unused_projects": [],
                                        "unused_users": []}
    monkeypatch.undo()
    code, out, _ = _audit(env, "--json")
    found = json.loads(out)["findings"]
    assert found["empty_consumers"]["items"] == [{
        **found["empty_consumers"]["items"][0], "consumer": EMPTY_B, "generation": 1}]
    assert found["unused_projects"]["count"] == found["unused_users"]["count"] == 0
    # EMPTY_A kept its new allocation, and names its new owner
    assert env.api.get(f"/allocations/{EMPTY_A}", version="1.38").json["project_id"] == "p"


def test_fix_exits_3_when_something_unfixable_is_left(env):
    env.db.write(_plant_fixable)
    host_a = env.uuid["host-a"]
    env.db.write(lambda conn: conn.execute(
        t.inventories.update().values(total=1)
        .where(t.inventories.c.resource_provider_id == sa.select(t.resource_providers.c.id)
               .where(t.resource_providers.c.uuid == host_a).scalar_subquery(),
               t.inventories.c.resource_class_id == sa.select(t.resource_classes.c.id)
               .where(t.resource_classes.c.name == "VCPU").scalar_subquery())))
    # host-a: VCPU 2 used of 1
    code, out, _ = _audit(env, "--fix")
    assert code == 3
    assert "over_capacity: 1 found" in out and "Fixed: 6 deleted" in out
    code, out, _ = _audit(env, "--fix")
    assert code == 3 and "Fixed: 0 deleted" in out


@pytest.mark.parametrize("args, message", [
    (("--kind", "nope"), "unknown --kind nope; the kinds are over_capacity, "),
    (("--kind", "empty_consumers", "--kind", "orphaned"), "unknown --kind orphaned;"),
    (("--limit", "0"), "--limit must be an integer of 1 or more, not '0'"),
    (("--limit", "-3"), "--limit must be an integer of 1 or more, not '-3'"),
    (("--limit", "ten"), "--limit must be an integer of 1 or more, not 'ten'"),
    (("--idle-days", "-1"), "--idle-days must be an integer of 0 or more, not '-1'"),
    (("--idle-days", "1.5"), "--idle-days must be an integer of 0 or more, not '1.5'"),
])
def test_bad_options_exit_1(capsys, tmp_path, args, message):
    conf = tmp_path / "placement.conf"
    conf.write_text(f"[placement_database]\nconnection = sqlite:///{tmp_path}/none.db\n")
    code, out, err = run(capsys, "--config-file", str(conf), "audit", *args)
    assert (code, out) == (1, "")
    assert err.startswith("placement-manage audit: " + message)


def test_an_unreachable_database_exits_1(capsys, tmp_path):
    conf = tmp_path / "placement.conf"
    conf.write_text("[placement_database]\n"
                    f"connection = sqlite:///{tmp_path}/no/such/dir/placement.db\n")
    code, out, err = run(capsys, "--config-file", str(conf), "audit")
    assert (code, out) == (1, "")
    assert err == ("placement-manage audit: the database cannot be reached "
                   "([placement_database] connection)\n")


# -- --nova: cli/audit_nova.py's run, stood in for ----------------------------------


class _Refused(Exception):
    pass


def _nova(monkeypatch, run_nova):
    fake = types.ModuleType("placer.cli.audit_nova")
    fake.run = run_nova
    fake.Refused = _Refused
    try:
        from placer.cli import audit_nova
    except ImportError:
        pass
    else:
        fake.Refused = audit_nova.Refused
    monkeypatch.setitem(sys.modules, "placer.cli.audit_nova", fake)
    monkeypatch.setattr(placer.cli, "audit_nova", fake, raising=False)
    return fake


def _nova_result(findings, fixed):
    return types.SimpleNamespace(findings=findings, fixed=fixed)


ORPHAN = "00000000-0000-0000-0000-0000000000cc"


def test_nova_refused_exits_1_with_why(env, monkeypatch):
    def refuse(conf, db, fix):
        raise fake.Refused("cell1 is down: GET /os-services says UNKNOWN")

    fake = _nova(monkeypatch, refuse)
    code, out, err = _audit(env, "--nova", "--fix")
    assert (code, out) == (1, "")
    assert err == ("placement-manage audit: the Nova cross-check refused: cell1 is down: "
                   "GET /os-services says UNKNOWN\n")


def test_nova_findings_are_merged(env, monkeypatch):
    calls = []

    def cross_check(conf, db, fix):
        calls.append(fix)
        found = {"orphaned": {"count": 1, "items": [{"consumer": ORPHAN, "resources": {
                     "VCPU": 1}}]},
                 "source_leftovers": {"count": 0, "items": []},
                 "unallocated_servers": {"count": 0, "items": []}}
        return _nova_result(found, {"orphaned": [ORPHAN], "source_leftovers": []} if fix
                            else {})

    _nova(monkeypatch, cross_check)
    code, out, _ = _audit(env, "--nova")
    assert code == 3 and calls == [False]
    assert "orphaned: 1 found" in out and ORPHAN in out and '{"VCPU": 1}' in out
    code, out, _ = _audit(env, "--nova", "--json")
    body = json.loads(out)
    assert list(body["findings"]) == [*audit_db.KINDS, "orphaned", "source_leftovers",
                                      "unallocated_servers"]
    assert body["findings"]["orphaned"]["items"][0]["consumer"] == ORPHAN
    code, out, _ = _audit(env, "--nova", "--fix", "--json")
    assert code == 4 and calls[-1] is True
    assert json.loads(out)["fixed"]["orphaned"] == [ORPHAN]


def test_nova_fix_left_alone_exits_3(env, monkeypatch):
    def cross_check(conf, db, fix):
        found = {"orphaned": {"count": 1, "items": [{"consumer": ORPHAN}]},
                 "source_leftovers": {"count": 0, "items": []},
                 "unallocated_servers": {"count": 0, "items": []}}
        result = _nova_result(found, {"orphaned": [], "source_leftovers": []})
        result.left_alone = {"orphaned": [{"consumer": ORPHAN,
                                           "reason": "its generation moved"}]}
        return result

    _nova(monkeypatch, cross_check)
    code, out, _ = _audit(env, "--nova", "--fix")
    assert code == 3
    assert "Left alone: 1" in out and "| orphaned | " + ORPHAN + " | its generation moved |" in out
    code, out, _ = _audit(env, "--nova", "--fix", "--json")
    assert code == 3
    assert json.loads(out)["left_alone"] == {"orphaned": [{"consumer": ORPHAN,
                                                           "reason": "its generation moved"}]}
