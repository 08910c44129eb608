"""GET /audit (Placer's own, every microversion) through the WSGI app: each
kind found on a cloud built through the API (and with SQL where the API
cannot make the fault), nothing sound reported, the limit, the kinds asked
for, bad input, policy and the answer's schema."""

import datetime
import uuid as uuidlib

import jsonschema
import pytest
import sqlalchemy as sa

from placer.db import tables as t
from placer.model.audit import DEFAULT_LIMIT, KINDS
from placer.schemas import responses
from tests.helpers import factories
from tests.helpers.api import assert_error
from tests.helpers.candidates import SHARING, Env

POLICY_DENIED = "Policy does not allow placement:audit:show to be performed."
OWNER = {"project_id": "proj", "user_id": "user"}
LONG_AGO = datetime.datetime(2020, 1, 1)


@pytest.fixture
def env(api, db):
    env = Env(api)
    env.db = db
    return env


def audit(env, query="", version="1.39", **kw):
    """GET /audit?query; a 200's body must be what /openapi.json describes."""
    result = env.api.get("/audit" + (f"?{query}" if query else ""), version=version, **kw)
    if result.status_int == 200:
        jsonschema.validate(result.json, responses.AUDIT)
    return result


def findings(env, query="") -> dict:
    r = audit(env, query)
    assert r.status_code == 200, r.text
    return r.json["findings"]


def found(env, kind, query="") -> dict:
    return findings(env, f"kind={kind}" + (f"&{query}" if query else ""))[kind]


def nothing_but(body: dict, *kinds) -> None:
    """Every kind is present; those not named found nothing."""
    assert list(body) == list(KINDS)
    for kind in set(KINDS) - set(kinds):
        assert body[kind] == {"count": 0, "items": []}, (kind, body[kind])


def allocate(env, consumer, usage: dict, version="1.38", consumer_type="INSTANCE",
             owner=OWNER):
    """PUT /allocations/{consumer}: ``usage``, provider name -> class -> amount."""
    body = {"allocations": {env.uuid[n]: {"resources": res} for n, res in usage.items()},
            **owner, "consumer_generation": None}
    if version >= "1.38":
        body["consumer_type"] = consumer_type
    r = env.api.put(f"/allocations/{consumer}", version=version, json=body)
    assert r.status_code == 204, r.text
    return consumer


def put_inventory(env, name, rc, expect=200, **fields):
    uuid = env.uuid[name]
    generation = env.api.get(f"/resource_providers/{uuid}", version="1.39").json[
        "generation"]
    r = env.api.put(f"/resource_providers/{uuid}/inventories/{rc}", version="1.39",
                    json={"resource_provider_generation": generation, **fields})
    assert r.status_code == expect, r.text
    return r


def sql(env, statement) -> None:
    env.db.write(lambda conn: conn.execute(statement))


def inventory_row(env, name, rc):
    inv = t.inventories
    return sa.and_(
        inv.c.resource_provider_id == sa.select(t.resource_providers.c.id).where(
            t.resource_providers.c.uuid == env.uuid[name]).scalar_subquery(),
        inv.c.resource_class_id == sa.select(t.resource_classes.c.id).where(
            t.resource_classes.c.name == rc).scalar_subquery())


def age(env, *names, created=LONG_AGO, updated=None) -> None:
    """Date providers' rows (the API stamps them now)."""
    rp = t.resource_providers
    sql(env, rp.update().where(rp.c.uuid.in_([env.uuid[n] for n in names]))
        .values(created_at=created, updated_at=updated))


C = [f"{n:08x}-0000-4000-8000-000000000000" for n in range(1, 10)]


@pytest.fixture
def sound(env):
    """A sound cloud: hosts used up to capacity (reserved amounts and
    allocation ratios counting), a NUMA tree, a shared disk pool that hosts
    in its aggregate use alongside their own resources."""
    env.rp("host-a", inv={"VCPU": {"total": 8, "reserved": 2, "allocation_ratio": 1.5},
                          "MEMORY_MB": {"total": 4096, "step_size": 512, "max_unit": 2048}},
           aggs=["rack1"])
    env.rp("host-b", inv={"VCPU": 4}, aggs=["rack2"])
    env.rp("numa")
    env.rp("numa-0", parent="numa", inv={"VCPU": 4}, aggs=["rack2"])
    env.rp("pool", inv={"DISK_GB": 200}, traits=[SHARING], aggs=["rack1", "rack2"])
    allocate(env, C[0], {"host-a": {"VCPU": 9, "MEMORY_MB": 1024}, "pool": {"DISK_GB": 40}})
    allocate(env, C[1], {"host-b": {"VCPU": 4}, "pool": {"DISK_GB": 10}})
    allocate(env, C[2], {"numa-0": {"VCPU": 2}, "pool": {"DISK_GB": 10}})
    allocate(env, C[3], {"pool": {"DISK_GB": 140}})  # the pool alone
    return env


def test_a_sound_cloud_has_no_findings(sound):
    body = findings(sound, "idle_days=0")
    nothing_but(body)
    # at capacity: (8 - 2) x 1.5 = 9 VCPU, 4 of 4, 200 GB of 200
    assert sound.api.get(f"/resource_providers/{sound.uuid['host-a']}/usages",
                         version="1.39").json["usages"]["VCPU"] == 9


def test_over_capacity_honours_reserved_and_the_ratio(sound):
    put_inventory(sound, "host-b", "VCPU", total=6)
    allocate(sound, C[4], {"host-b": {"VCPU": 2}})
    # shrunk under its allocations: the API takes it, as the reference does
    put_inventory(sound, "host-b", "VCPU", total=4)
    put_inventory(sound, "host-a", "VCPU", total=8, reserved=3, allocation_ratio=1.5)
    # a ratio lowered by SQL: 4 x 0.45 = 1.8, so 1 (MySQL's single-precision
    # 0.45 is a hair below it)
    sql(sound, t.inventories.update().where(inventory_row(sound, "numa-0", "VCPU"))
        .values(allocation_ratio=0.45))
    body = findings(sound)
    nothing_but(body, "over_capacity")
    over = body["over_capacity"]
    assert over["count"] == 3
    tie = sorted(["host-a", "host-b"], key=lambda name: sound.uuid[name])
    assert [(i["name"], i["capacity"], i["used"], i["excess"]) for i in over["items"]] == [
        *sorted([("host-a", 7, 9, 2), ("host-b", 4, 6, 2)], key=lambda i: tie.index(i[0])),
        ("numa-0", 1, 2, 1)]
    by_name = {i["name"]: i for i in over["items"]}
    assert by_name["host-a"] == {
        "resource_provider": sound.uuid["host-a"], "name": "host-a", "resource_class": "VCPU",
        "total": 8, "reserved": 3, "allocation_ratio": 1.5, "capacity": 7, "used": 9,
        "excess": 2, "consumers": [{"consumer": C[0], "used": 9}]}
    assert by_name["host-b"]["consumers"] == [{"consumer": C[1], "used": 4},
                                              {"consumer": C[4], "used": 2}]
    assert by_name["numa-0"]["allocation_ratio"] == pytest.approx(0.45)
    # at capacity again: nothing over
    put_inventory(sound, "host-a", "VCPU", total=8, reserved=2, allocation_ratio=1.5)
    put_inventory(sound, "host-b", "VCPU", total=7, reserved=1)
    assert [i["name"] for i in found(sound, "over_capacity")["items"]] == ["numa-0"]


def test_over_capacity_is_ordered_by_excess(env):
    env.rp("small", inv={"VCPU": 10})
    env.rp("large", inv={"VCPU": 10})
    allocate(env, C[0], {"small": {"VCPU": 10}})
    allocate(env, C[1], {"large": {"VCPU": 6}})
    allocate(env, C[2], {"large": {"VCPU": 4}})
    put_inventory(env, "small", "VCPU", total=9)
    put_inventory(env, "large", "VCPU", total=4)
    items = found(env, "over_capacity")["items"]
    assert [(i["name"], i["excess"]) for i in items] == [("large", 6), ("small", 1)]
    assert items[0]["consumers"] == [{"consumer": C[1], "used": 6},
                                     {"consumer": C[2], "used": 4}]


def test_unit_limits_changed_under_allocations(sound):
    # the API takes new unit limits whatever is allocated
    put_inventory(sound, "host-a", "MEMORY_MB", total=4096, step_size=768, max_unit=768,
                  min_unit=768)
    put_inventory(sound, "host-b", "VCPU", total=8, min_unit=8, max_unit=8)
    sql(sound, t.inventories.update().where(inventory_row(sound, "pool", "DISK_GB"))
        .values(step_size=0))  # no API writes it: every amount refused
    body = findings(sound)
    nothing_but(body, "unit_violations")
    items = body["unit_violations"]["items"]
    assert body["unit_violations"]["count"] == 6
    assert next(i for i in items if i["resource_class"] == "MEMORY_MB") == {
        "consumer": C[0], "resource_provider": sound.uuid["host-a"],
        "resource_class": "MEMORY_MB", "used": 1024, "min_unit": 768, "max_unit": 768,
        "step_size": 768, "violates": ["max_unit", "step_size"]}
    assert {(i["consumer"], i["resource_class"], tuple(i["violates"])) for i in items} == {
        (C[0], "MEMORY_MB", ("max_unit", "step_size")), (C[0], "DISK_GB", ("step_size",)),
        (C[1], "VCPU", ("min_unit",)), (C[1], "DISK_GB", ("step_size",)),
        (C[2], "DISK_GB", ("step_size",)), (C[3], "DISK_GB", ("step_size",))}
    assert [i["consumer"] for i in items] == sorted(i["consumer"] for i in items)


def test_allocations_without_inventory_are_not_over_capacity(sound):
    # the API refuses to delete an inventory in use: SQL does it
    sql(sound, t.inventories.delete().where(inventory_row(sound, "host-a", "MEMORY_MB")))
    factories.allocation(sound.db, sound.uuid["host-b"], "MEMORY_MB", 64, consumer=C[1])
    body = findings(sound)
    nothing_but(body, "without_inventory")
    assert body["without_inventory"] == {"count": 2, "items": [
        {"consumer": C[0], "resource_provider": sound.uuid["host-a"],
         "resource_class": "MEMORY_MB", "used": 1024},
        {"consumer": C[1], "resource_provider": sound.uuid["host-b"],
         "resource_class": "MEMORY_MB", "used": 64}]}


def test_split_consumers_leave_out_shared_pools(sound):
    # an evacuation's leftovers: the source host keeps what the destination has
    put_inventory(sound, "host-a", "VCPU", total=10, reserved=2, allocation_ratio=1.5)
    put_inventory(sound, "host-b", "VCPU", total=8)
    allocate(sound, C[5], {"host-a": {"VCPU": 1}, "host-b": {"VCPU": 1}})
    # a pool in no aggregate with this host is not its sharing provider
    sound.rp("far", inv={"VCPU": 4}, aggs=["rack3"])
    put_inventory(sound, "pool", "DISK_GB", total=300)
    allocate(sound, C[6], {"far": {"VCPU": 1}, "pool": {"DISK_GB": 5}},
             consumer_type="MIGRATION")
    body = findings(sound)
    nothing_but(body, "split_consumers")
    split = body["split_consumers"]
    assert split["count"] == 2
    first, second = split["items"]
    assert first["consumer"] == C[5]
    assert {k: first[k] for k in ("project_id", "user_id", "consumer_type", "generation")} == {
        "project_id": "proj", "user_id": "user", "consumer_type": "INSTANCE", "generation": 1}
    stamp = datetime.datetime.strptime(first["updated_at"], "%Y-%m-%dT%H:%M:%SZ")
    assert abs(stamp - datetime.datetime.now(datetime.UTC).replace(tzinfo=None)) < \
        datetime.timedelta(minutes=5)
    assert first["roots"] == sorted([
        {"uuid": sound.uuid["host-a"], "name": "host-a", "resources": {"VCPU": 1}},
        {"uuid": sound.uuid["host-b"], "name": "host-b", "resources": {"VCPU": 1}}],
        key=lambda r: r["uuid"])
    assert second["consumer"] == C[6] and second["consumer_type"] == "MIGRATION"
    assert {r["name"]: r["resources"] for r in second["roots"]} == {
        "far": {"VCPU": 1}, "pool": {"DISK_GB": 5}}


def test_a_pool_shared_with_a_child_is_the_trees_sharing_provider(env):
    env.rp("host")
    env.rp("host-numa", parent="host", inv={"VCPU": 4}, aggs=["agg"])
    env.rp("pool", inv={"DISK_GB": 10}, traits=[SHARING], aggs=["agg"])
    env.rp("other", inv={"DISK_GB": 10}, aggs=["agg"])  # in the aggregate, not sharing
    allocate(env, C[0], {"host-numa": {"VCPU": 1}, "pool": {"DISK_GB": 1}})
    allocate(env, C[1], {"host-numa": {"VCPU": 1}, "other": {"DISK_GB": 1}})
    split = found(env, "split_consumers")
    assert [i["consumer"] for i in split["items"]] == [C[1]]


def test_empty_consumers(sound):
    # the API deletes a consumer with its last allocation: SQL leaves one
    project = sound.db.read(lambda conn: conn.execute(
        sa.select(t.projects.c.id).where(t.projects.c.external_id == "proj")).scalar_one())
    user = sound.db.read(lambda conn: conn.execute(
        sa.select(t.users.c.id).where(t.users.c.external_id == "user")).scalar_one())
    sql(sound, t.consumers.insert().values(uuid=C[8], project_id=project, user_id=user,
                                           generation=3, created_at=LONG_AGO))
    assert sound.api.delete(f"/allocations/{C[3]}", version="1.39").status_code == 204
    body = findings(sound)
    nothing_but(body, "empty_consumers")
    assert body["empty_consumers"] == {"count": 1, "items": [{
        "consumer": C[8], "project_id": "proj", "user_id": "user", "consumer_type": None,
        "generation": 3, "updated_at": "2020-01-01T00:00:00Z"}]}


def test_idle_providers(sound):
    sound.rp("spare")  # no inventory, no allocations, no children
    sound.rp("parent")
    sound.rp("leaf", parent="parent")
    sound.rp("touched")
    age(sound, "spare", "parent", "leaf", "numa")
    age(sound, "touched", updated=datetime.datetime.now(datetime.UTC).replace(tzinfo=None))
    body = findings(sound)
    nothing_but(body, "idle_providers")
    items = body["idle_providers"]["items"]
    assert sorted(i["name"] for i in items) == ["leaf", "spare"]
    assert [i["resource_provider"] for i in items] == sorted(i["resource_provider"]
                                                             for i in items)
    assert items[0]["updated_at"] == "2020-01-01T00:00:00Z" and items[0]["generation"] == 0
    # unchanged for at least idle_days days
    days = (datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - LONG_AGO).days
    assert found(sound, "idle_providers", f"idle_days={days}")["count"] == 2
    assert found(sound, "idle_providers", f"idle_days={days + 1}")["count"] == 0
    assert found(sound, "idle_providers", "idle_days=0")["count"] == 3  # touched too
    assert found(sound, "idle_providers", "idle_days=99999999999999999999")["count"] == 0


def test_unused_projects_and_users(sound):
    # a consumer deleted through the API leaves its project and user rows
    put_inventory(sound, "host-b", "VCPU", total=8)
    allocate(sound, C[7], {"host-b": {"VCPU": 1}}, owner={"project_id": "gone",
                                                          "user_id": "left"})
    assert sound.api.delete(f"/allocations/{C[7]}", version="1.39").status_code == 204
    sql(sound, t.users.insert().values(external_id="never"))
    body = findings(sound)
    nothing_but(body, "unused_projects", "unused_users")
    assert body["unused_projects"] == {"count": 1, "items": [{"external_id": "gone"}]}
    assert body["unused_users"] == {"count": 2, "items": [{"external_id": "left"},
                                                         {"external_id": "never"}]}


def test_limit_cuts_items_not_counts(env):
    for n in range(5):
        env.rp(f"spare-{n}")
    age(env, *(f"spare-{n}" for n in range(5)))
    every = found(env, "idle_providers")
    assert every["count"] == 5 and len(every["items"]) == 5
    for limit in (1, 3):
        cut = found(env, "idle_providers", f"limit={limit}")
        assert cut == {"count": 5, "items": every["items"][:limit]}
    assert found(env, "idle_providers", "limit=2&limit=4")["items"] == every["items"][:4]
    assert DEFAULT_LIMIT == 1000


def test_kinds_asked_for_in_the_answers_order(sound):
    body = findings(sound, "kind=unused_users&kind=over_capacity&kind=unused_users")
    assert body == {"over_capacity": {"count": 0, "items": []},
                    "unused_users": {"count": 0, "items": []}}
    assert list(findings(sound)) == list(KINDS)


@pytest.mark.parametrize("version", [None, "1.0", "1.10", "1.39", "latest"])
def test_every_microversion(sound, version):
    r = audit(sound, "kind=over_capacity", version=version)
    assert r.status_code == 200, r.text
    assert r.json == {"findings": {"over_capacity": {"count": 0, "items": []}}}


@pytest.mark.parametrize("roles, status", [("admin", 200), ("service", 403), ("member", 403),
                                           ("reader", 403)])
def test_policy(env, roles, status):
    r = audit(env, token="alice:proj", headers={"X-Roles": roles})
    assert r.status_code == status, r.text
    if status == 403:
        assert_error(r, 403, POLICY_DENIED, "placement.undefined_code")


KIND_OF = "is not a kind of finding: one of over_capacity, unit_violations"


@pytest.mark.parametrize("query, message", [
    ("kind=nope", f"kind='nope' {KIND_OF}"),
    ("kind=over_capacity&kind=orphans", f"kind='orphans' {KIND_OF}"),
    ("kind=", f"kind='' {KIND_OF}"),
    ("kind=OVER_CAPACITY", f"kind='OVER_CAPACITY' {KIND_OF}"),
    ("limit=0", "limit='0' is not an integer of 1 or more."),
    ("limit=-1", "limit='-1' is not an integer of 1 or more."),
    ("limit=abc", "limit='abc' is not an integer of 1 or more."),
    ("limit=1.5", "limit='1.5' is not an integer of 1 or more."),
    ("limit=", "limit='' is not an integer of 1 or more."),
    ("limit=abc&limit=2", "limit='abc' is not an integer of 1 or more."),
    ("idle_days=-1", "idle_days='-1' is not an integer of 0 or more."),
    ("idle_days=x", "idle_days='x' is not an integer of 0 or more."),
    ("idle_days=", "idle_days='' is not an integer of 0 or more."),
    ("bogus=1", "'bogus' is not a parameter of GET /audit, which takes kind, limit, "
                "idle_days."),
    ("resources=VCPU:1", "'resources' is not a parameter of GET /audit"),
    ("kind=" + "x" * 5000, "xxx...' is not a kind"),
])
def test_bad_queries_are_400(env, query, message):
    r = audit(env, query)
    error = assert_error(r, 400, message, "placement.query.bad_value")
    assert "Invalid query string parameters: " in error["detail"]
    assert len(error["detail"]) < 500


def test_an_old_microversion_errors_without_a_code(env):
    assert "code" not in assert_error(audit(env, "kind=nope", version="1.0"), 400)


def test_amounts_past_64_bits(env):
    huge = 99999999999999999999
    assert found(env, "unused_users", f"limit={huge}") == {"count": 0, "items": []}
    env.rp("spare")
    age(env, "spare")
    assert found(env, "idle_providers", f"limit={huge}")["count"] == 1
    assert found(env, "idle_providers", f"idle_days={huge}")["count"] == 0


def test_document_lists_the_route(env):
    doc = env.api.get("/openapi.json", version="1.39").json
    operation = doc["paths"]["/audit"]["get"]
    assert {p.get("name") for p in operation["parameters"]} >= {"kind", "limit", "idle_days"}
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == \
        responses.AUDIT
    assert "/audit" in env.api.get("/openapi.json", version="1.0").json["paths"]


def test_a_consumer_without_a_row_is_named(env):
    env.rp("a", inv={"VCPU": 4})
    env.rp("b", inv={"VCPU": 4})
    orphan = str(uuidlib.UUID(int=5))
    factories.allocation(env.db, env.uuid["a"], "VCPU", 1, consumer=orphan)
    factories.allocation(env.db, env.uuid["b"], "VCPU", 1, consumer=orphan)
    item = found(env, "split_consumers")["items"][0]
    assert {k: v for k, v in item.items() if k != "roots"} == {
        "consumer": orphan, "project_id": None, "user_id": None, "consumer_type": None,
        "generation": None, "updated_at": None}


def metrics_app(db, tmp_path, audit_metrics=True):
    from placer import conf as placer_conf
    from placer import wsgi
    from tests.helpers.api import Api
    path = tmp_path / "placement.conf"
    path.write_text("\n".join([
        "[api]", "auth_strategy = noauth2", "[placement_database]", "connection = sqlite://",
        "[placer]", "metrics_enabled = True", f"audit_metrics = {audit_metrics}"]) + "\n")
    return Api(wsgi.create_app(placer_conf.new_config(["--config-file", str(path)]), db))


def gauges(api) -> dict:
    from prometheus_client.parser import text_string_to_metric_families
    r = api.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    assert r.status_code == 200, r.text
    assert r.text.endswith("# EOF\n")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples
            if s.name.startswith("placement_audit")}


@pytest.mark.usefixtures("fresh_policy")
def test_gauges_count_what_the_route_finds(sound, tmp_path):
    put_inventory(sound, "host-a", "VCPU", total=8, reserved=4, allocation_ratio=1.5)
    sql(sound, t.users.insert().values(external_id="never"))
    api = metrics_app(sound.db, tmp_path)
    found = gauges(api)
    body = findings(sound)
    assert {labels[0][1]: value for (name, labels), value in found.items()
            if name == "placement_audit_findings"} == {
        kind: float(f["count"]) for kind, f in body.items()}
    assert {labels: value for (name, labels), value in found.items()
            if name == "placement_audit_over_capacity_excess"} == {
        (("hostname", "host-a"), ("resource_provider", sound.uuid["host-a"]),
         ("resourcetype", "VCPU")): 3.0}
    assert found["placement_audit_findings", (("kind", "unused_users"),)] == 1.0
    assert gauges(metrics_app(sound.db, tmp_path, audit_metrics=False)) == {}
