"""GET /allocation_candidates/explain (Placer's own, from 1.10): the funnel
through the WSGI app, its microversion window, policy and 400s."""

import gc
import uuid as uuidlib

import jsonschema
import pytest

from placer.db import tables
from placer.schemas import responses
from tests.helpers.api import assert_error
from tests.helpers.candidates import SHARING, Env

POLICY_DENIED = ("Policy does not allow placement:allocation_candidates:explain to be "
                 "performed.")


@pytest.fixture
def env(api):
    return Env(api)


def explain_path(env, query):
    return env.path(query).replace("/allocation_candidates?", "/allocation_candidates/explain?")


def explain(env, query, version="1.39", **kw):
    """The answer; a 200's body must be what /openapi.json describes."""
    result = env.api.get(explain_path(env, query), version=version, **kw)
    if result.status_int == 200:
        jsonschema.validate(result.json, responses.EXPLAIN)
    return result


@pytest.fixture
def cloud(env):
    """compute-12: 48 of 64 VCPU free; compute-3: 16 VCPU, AVX2, an SR-IOV
    child; a shared disk pool in the aggregate of compute-12."""
    env.rp("compute-12", inv={"VCPU": 64, "MEMORY_MB": 8192}, aggs=["rack1"])
    env.rp("compute-3", inv={"VCPU": {"total": 16, "max_unit": 8}, "MEMORY_MB": 4096},
           traits=["HW_CPU_X86_AVX2"])
    env.rp("compute-3-nic", parent="compute-3", inv={"SRIOV_NET_VF": 8})
    env.rp("disk-pool", inv={"DISK_GB": 1000}, traits=[SHARING], aggs=["rack1"])
    env.rp("empty-host")
    env.consume({"compute-12": {"VCPU": 16}})
    return env


def test_names_the_constraint_that_empties_the_answer(cloud):
    r = explain(cloud, "resources=VCPU:64,MEMORY_MB:1024")
    assert r.status_code == 200, r.text
    body = r.json
    assert list(body) == ["candidates", "roots", "groups", "request", "first_empty", "order"]
    assert body["order"] == {"name": "id"}
    assert body["candidates"] == 0
    assert body["first_empty"] == {
        "group": "", "constraint": "capacity", "value": "VCPU:64",
        "message": "no provider has 64 free VCPU: the largest free amount is 48 on compute-12"}
    (group,) = body["groups"]
    assert group["suffix"] == "" and group["resources"] == {"VCPU": 64, "MEMORY_MB": 1024}
    funnel = group["funnel"]
    assert funnel[0] == {"constraint": "class", "value": "VCPU", "providers": 2, "trees": 2}
    assert funnel[1] == {"constraint": "class", "value": "MEMORY_MB", "providers": 2,
                         "trees": 2}
    assert funnel[2] == {"constraint": "capacity", "value": "VCPU:64", "providers": 0,
                         "trees": 0, "detail": "the largest free amount is 48 on compute-12"}
    assert [s["constraint"] for s in body["request"]] == ["one_tree", "together", "candidates"]


def test_an_amount_past_64_bits_is_echoed_and_found_nowhere(cloud):
    """The answer echoes the amount asked (a 500 before: the JSON encoder
    stopped at 64 bits); the candidates route answers it too."""
    huge = 99999999999999999999
    assert cloud.ok(f"resources=MEMORY_MB:{huge}").requests == []
    body = explain(cloud, f"resources=MEMORY_MB:{huge}").json
    assert body["candidates"] == 0
    assert body["groups"][0]["resources"] == {"MEMORY_MB": huge}
    assert body["first_empty"]["constraint"] == "capacity"


def test_agrees_with_the_candidates_answer(cloud):
    query = "resources=VCPU:4,DISK_GB:10&limit=5"
    found = cloud.ok(query).requests
    body = explain(cloud, query).json
    assert body["candidates"] == len(found) == 1
    assert body["first_empty"] is None
    assert body["request"][-2:] == [
        {"constraint": "candidates", "value": "", "trees": 1, "candidates": 1},
        {"constraint": "limit", "value": "5", "trees": 1, "candidates": 1}]


def test_request_wide_constraints(cloud):
    body = explain(cloud, "resources1=VCPU:1&resources2=SRIOV_NET_VF:1&group_policy=isolate"
                          "&same_subtree=1,2&root_required=HW_CPU_X86_AVX2").json
    assert body["first_empty"] is None and body["candidates"] == 1
    assert [(s["constraint"], s["trees"]) for s in body["request"][:-1]] == [
        ("one_tree", 1), ("root_required", 1), ("together", 1), ("same_subtree", 1),
        ("isolate", 1)]
    first = explain(cloud, "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate"
                           ).json["first_empty"]
    assert first["constraint"] == "isolate"
    assert first["message"] == ("no tree left has a different provider for each of the "
                                "groups 1, 2 (group_policy=isolate)")


def test_provider_report(cloud):
    cloud.traits("CUSTOM_FAST")
    uuid = cloud.uuid["compute-12"]
    body = explain(cloud, f"resources=VCPU:64,DISK_GB:10&required=CUSTOM_FAST&provider={uuid}"
                   ).json
    report = body["provider"]
    assert report["name"] == "compute-12" and report["root_provider_uuid"] == uuid
    assert report["failures"] == [{
        "group": "", "constraint": "capacity", "value": "VCPU:64",
        "detail": "48 VCPU free on compute-12 (capacity 64, used 16), 64 asked: 16 short"}]
    assert report["tree"]["failures"] == report["failures"]  # judged alone, capacity fails
    body = explain(cloud, f"resources=VCPU:8,DISK_GB:10&required=CUSTOM_FAST&provider={uuid}"
                   ).json
    assert [(f["constraint"], f["value"]) for f in body["provider"]["tree"]["failures"]] == [
        ("required", "CUSTOM_FAST")]
    # a provider holding nothing asked for: its tree is loaded for the report
    body = explain(cloud, f"resources=VCPU:1&provider={cloud.uuid['empty-host']}").json
    assert body["provider"]["failures"] == [{
        "group": "", "constraint": "class", "value": "VCPU",
        "detail": "empty-host has no inventory of VCPU"}]
    assert body["candidates"] == 2


def test_provider_must_be_a_known_uuid(cloud):
    unknown = str(uuidlib.uuid4())
    error = assert_error(explain(cloud, f"resources=VCPU:1&provider={unknown}"), 400,
                         f"No resource provider with uuid {unknown} found",
                         "placement.query.bad_value")
    assert error["title"] == "Bad Request"
    assert_error(explain(cloud, "resources=VCPU:1&provider=nope"), 400,
                 "Expected 'provider' parameter to be a format of uuid. Got: nope",
                 "placement.query.bad_value")
    uuid = cloud.uuid["compute-3"]
    assert_error(explain(cloud, f"resources=VCPU:1&provider={uuid}&provider={uuid}"), 400,
                 "'provider' may be specified only once", "placement.query.duplicate_key")


@pytest.mark.parametrize("query, version", [
    ("resources=VCPU:x", "1.39"),
    ("", "1.39"),
    ("resources=VCPU:1&bogus=1", "1.10"),
    ("resources1=VCPU:1&resources2=VCPU:1", "1.39"),
    ("resources=CUSTOM_NOPE:1", "1.39"),
    ("resources=VCPU:1&required=CUSTOM_NOPE", "1.39"),
    ("resources=VCPU:1&required=!HW_CPU_X86_AVX2", "1.21"),
    ("resources=VCPU:1&root_required=HW_CPU_X86_AVX2", "1.34"),
    ("resources1=VCPU:1&group_policy=none&same_subtree=1,2", "1.36"),
    ("resources=VCPU:1&limit=0", "1.16"),
])
def test_the_same_400s_as_the_candidates_route(cloud, query, version):
    expected = cloud.get(query, version)
    assert expected.status_code == 400, expected.text
    got = explain(cloud, query, version)
    error = assert_error(got, 400)
    assert error["detail"] == expected.json["errors"][0]["detail"]
    assert error.get("code") == expected.json["errors"][0].get("code")


@pytest.mark.parametrize("version, status", [("1.9", 404), ("1.10", 200), ("1.39", 200)])
def test_microversion_window(cloud, version, status):
    r = explain(cloud, "resources=VCPU:1", version)
    assert r.status_code == status, r.text
    if status == 404:
        assert_error(r, 404)
    else:
        assert r.json["candidates"] == 2


def test_no_version_header_is_1_0(cloud):
    assert_error(explain(cloud, "resources=VCPU:1", version=None), 404)


@pytest.mark.parametrize("roles, status", [("admin", 200), ("service", 403), ("member", 403),
                                           ("reader", 403)])
def test_policy_is_admin_only(env, roles, status):
    r = explain(env, "resources=VCPU:1", token="alice:proj", headers={"X-Roles": roles})
    assert r.status_code == status, r.text
    if status == 403:
        assert_error(r, 403, POLICY_DENIED, "placement.undefined_code")


def test_policy_is_checked_before_the_query(env):
    r = explain(env, "resources=VCPU:0", token="alice:proj")
    assert_error(r, 403, POLICY_DENIED)


def test_only_get(env):
    r = env.api.post("/allocation_candidates/explain?resources=VCPU:1", version="1.39", json={})
    assert_error(r, 405)
    assert r.headers["Allow"] == "GET"


def test_provider_stored_with_another_case(cloud, db):
    """A provider uuid stored in upper case (a database the reference wrote):
    MariaDB finds it regardless of case, the others do not; never a 500."""
    uuid = cloud.uuid["compute-3"]
    rp = tables.resource_providers
    db.write(lambda conn: conn.execute(
        rp.update().where(rp.c.uuid == uuid).values(uuid=uuid.upper())))
    result = explain(cloud, f"resources=VCPU:32&provider={uuid}")
    if db.engine.dialect.name == "mysql":
        assert result.status_int == 200, result.text
        assert result.json["provider"]["uuid"] == uuid.upper()
    else:
        assert_error(result, 400, f"No resource provider with uuid {uuid} found")


def test_the_collector_is_off_while_the_snapshot_is_read_and_explained(cloud, monkeypatch):
    from placer.candidates import explanation as engine
    from placer.candidates import service

    seen = []

    def spy(module, name):
        real = getattr(module, name)

        def call(*args, **kwargs):
            seen.append((name, gc.isenabled()))
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, call)

    spy(service, "checked_snapshot")
    spy(engine, "explain")
    gc.enable()
    assert explain(cloud, "resources=VCPU:64,MEMORY_MB:1024").status_code == 200
    assert seen == [("checked_snapshot", False), ("explain", False)]
    assert gc.isenabled()


def _numa_hosts(env, count):
    for h in range(count):
        env.rp(f"host{h}")
        for n in range(2):
            env.rp(f"host{h}-numa{n}", parent=f"host{h}", inv={"VCPU": 8, "MEMORY_MB": 16384})


def test_says_how_many_roots_the_answer_spans(env):
    _numa_hosts(env, 3)
    body = explain(env, "resources1=VCPU:1,MEMORY_MB:512&limit=4").json
    assert (body["candidates"], body["roots"]) == (4, 3)
    steps = {s["constraint"]: s for s in body["request"]}
    assert (steps["candidates"]["candidates"], steps["candidates"]["trees"]) == (6, 3)
    assert (steps["limit"]["candidates"], steps["limit"]["trees"]) == (4, 3)
    answer = env.ok("resources1=VCPU:1,MEMORY_MB:512&limit=4")
    assert len({name.split("-")[0] for c in answer.allocs for name, _, _ in c}) == 3
    body = explain(env, "resources1=VCPU:1,MEMORY_MB:512&limit=2").json
    assert (body["candidates"], body["roots"]) == (2, 2)


def test_roots_follow_max_allocation_candidates_and_the_strategy(db, tmp_path):
    from placer import wsgi
    from tests.helpers.api import Api, make_conf

    for strategy, roots in (("depth-first", 2), ("breadth-first", 3)):
        conf = make_conf(tmp_path, placement={
            "max_allocation_candidates": "3",
            "allocation_candidates_generation_strategy": strategy})
        env = Env(Api(wsgi.create_app(conf, db)))
        if strategy == "depth-first":
            _numa_hosts(env, 3)
        body = explain(env, "resources1=VCPU:1,MEMORY_MB:512&limit=3").json
        steps = {s["constraint"]: s for s in body["request"]}
        assert steps["max_allocation_candidates"]["trees"] == roots
        assert (body["candidates"], body["roots"]) == (3, roots)
