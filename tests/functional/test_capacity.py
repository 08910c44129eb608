"""GET and POST /capacity (Placer's own, from 1.10) through the WSGI app:
copies of a request per root and in all, the per-class summary, the
microversion window, policy, bad input and the answers' schemas."""

import uuid as uuidlib

import jsonschema
import pytest

from placer.schemas import responses
from tests.helpers.api import assert_error
from tests.helpers.candidates import SHARING, Env

POLICY_DENIED = "Policy does not allow placement:capacity:show to be performed."


@pytest.fixture
def env(api):
    return Env(api)


def capacity(env, query="", version="1.39", **kw):
    """GET /capacity?query; a 200's body must be what /openapi.json describes."""
    query = query.format(**env.uuid) if "{" in query else query
    result = env.api.get("/capacity" + (f"?{query}" if query else ""), version=version, **kw)
    if result.status_int == 200:
        jsonschema.validate(result.json, responses.CAPACITY)
    return result


def shapes(env, body, version="1.39", **kw):
    result = env.api.post("/capacity", version=version, json=body, **kw)
    if result.status_int == 200:
        jsonschema.validate(result.json, responses.CAPACITY_SHAPES)
    return result


def fits(body) -> dict:
    return {root["name"]: root["fits"] for root in body["roots"]}


@pytest.fixture
def cloud(env):
    """flat-a: 16 VCPU, 4 used; flat-b: 8 VCPU; numa: two nodes of 4 VCPU and
    4096 MB, the first with 3 VCPU used; a disk pool shared with flat-a."""
    env.rp("flat-a", inv={"VCPU": 16, "MEMORY_MB": 16384}, aggs=["rack1"])
    env.rp("flat-b", inv={"VCPU": 8, "MEMORY_MB": 2048})
    env.rp("numa")
    for n in range(2):
        env.rp(f"numa-{n}", parent="numa", inv={"VCPU": 4, "MEMORY_MB": 4096})
    env.rp("pool", inv={"DISK_GB": 100}, traits=[SHARING], aggs=["rack1"])
    env.consume({"flat-a": {"VCPU": 4}})
    env.consume({"numa-0": {"VCPU": 3}})
    return env


def test_counts_copies_per_root_largest_first(cloud):
    body = capacity(cloud, "resources=VCPU:2,MEMORY_MB:1024").json
    assert fits(body) == {"flat-a": 6, "numa": 2, "flat-b": 2}
    assert [r["name"] for r in body["roots"]] == ["flat-a", *sorted(
        ["numa", "flat-b"], key=lambda n: cloud.uuid[n])]
    assert (body["total"], body["exact"], body["inexact"]) == (10, True, 0)
    assert all("exact" not in r for r in body["roots"])


def test_a_tree_is_counted_whole(cloud):
    # one granular group: each copy on one node; node 0 has 1 VCPU left
    assert fits(capacity(cloud, "resources1=VCPU:1,MEMORY_MB:1024").json)["numa"] == 5
    # unsuffixed: VCPU from one node, memory from either
    assert fits(capacity(cloud, "resources=VCPU:1,MEMORY_MB:1024").json)["numa"] == 5
    # isolate: two VCPU groups on distinct nodes, node 0 holds 1
    body = capacity(cloud, "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate").json
    assert fits(body)["numa"] == 1


def test_limit_caps_the_list_not_the_total(cloud):
    body = capacity(cloud, "resources=VCPU:2,MEMORY_MB:1024&limit=1").json
    assert fits(body) == {"flat-a": 6}
    assert body["total"] == 10


def test_shared_pool_is_counted_once_in_the_total(cloud):
    body = capacity(cloud, "resources=VCPU:1,DISK_GB:30").json
    # flat-a alone could take the pool's 3 copies; no other host reaches it
    assert fits(body) == {"flat-a": 3}
    assert body["total"] == 3


def test_summary_per_class(cloud):
    body = capacity(cloud).json
    assert body == {"resources": {
        "DISK_GB": {"capacity": 100, "used": 0, "free": 100},
        "MEMORY_MB": {"capacity": 16384 + 2048 + 8192, "used": 0, "free": 26624},
        "VCPU": {"capacity": 32, "used": 7, "free": 25}}}
    rack = capacity(cloud, "member_of={rack1}").json["resources"]
    assert rack["VCPU"] == {"capacity": 16, "used": 4, "free": 12}
    assert rack["DISK_GB"]["capacity"] == 100
    tree = capacity(cloud, "in_tree={numa}").json["resources"]
    assert tree == {"MEMORY_MB": {"capacity": 8192, "used": 0, "free": 8192},
                    "VCPU": {"capacity": 8, "used": 3, "free": 5}}
    shared = capacity(cloud, f"required={SHARING}").json["resources"]
    assert list(shared) == ["DISK_GB"]


def test_summary_grouped(cloud):
    by_root = capacity(cloud, "group_by=root").json["groups"]
    assert {cloud.name_of(g["root"]): g["resources"]["VCPU"]["free"]
            for g in by_root if "VCPU" in g["resources"]} == {"flat-a": 12, "flat-b": 8,
                                                              "numa": 5}
    by_agg = capacity(cloud, "group_by=aggregate").json["groups"]
    assert by_agg == [{"aggregate": cloud.uuid["rack1"], "resources": {
        "DISK_GB": {"capacity": 100, "used": 0, "free": 100},
        "MEMORY_MB": {"capacity": 16384, "used": 0, "free": 16384},
        "VCPU": {"capacity": 16, "used": 4, "free": 12}}}]


def test_free_never_below_zero_per_provider(env):
    env.rp("shrunk", inv={"VCPU": 8})
    env.consume({"shrunk": {"VCPU": 8}})
    env.rp("other", inv={"VCPU": 4})
    r = env.api.put(f"/resource_providers/{env.uuid['shrunk']}/inventories/VCPU",
                    version="1.39", json={"total": 8, "reserved": 4,
                                          "resource_provider_generation": 2})
    assert r.status_code == 200, r.text
    assert capacity(env).json["resources"]["VCPU"] == {"capacity": 8, "used": 8, "free": 4}


def test_post_answers_every_shape(cloud):
    body = shapes(cloud, {"shapes": {
        "small": "resources=VCPU:2,MEMORY_MB:1024",
        "numa": "resources1=VCPU:1,MEMORY_MB:1024&limit=1",
        "none": "resources=VCPU:100"}}).json
    assert list(body["shapes"]) == ["small", "numa", "none"]
    assert body["shapes"]["small"]["total"] == 10
    assert [r["name"] for r in body["shapes"]["numa"]["roots"]] == ["flat-a"]
    assert body["shapes"]["none"] == {"total": 0, "exact": True, "inexact": 0, "roots": []}


def test_agrees_with_the_candidates_route(cloud):
    for query in ("resources=VCPU:2,MEMORY_MB:1024", "resources1=VCPU:3&required1=!HW_CPU_X86_AVX2",
                  "resources=VCPU:1,DISK_GB:10", "resources=MEMORY_MB:3000"):
        answer = capacity(cloud, query)
        assert answer.status_code == 200, (query, answer.text)
        counted = {r["uuid"] for r in answer.json["roots"]}
        found = {cloud.uuid[name.split("-")[0] if name.startswith("numa") else name]
                 for c in cloud.ok(query).allocs for name, _, _ in c if name != "pool"}
        assert counted == found, query


@pytest.mark.parametrize("version, status", [("1.9", 404), ("1.10", 200), ("1.39", 200)])
def test_microversion_window(cloud, version, status):
    r = capacity(cloud, "resources=VCPU:1", version)
    assert r.status_code == status, r.text
    p = shapes(cloud, {"shapes": {"a": "resources=VCPU:1"}}, version)
    assert p.status_code == status, p.text
    if status == 404:
        assert_error(r, 404)
    else:
        assert r.json["total"] == p.json["shapes"]["a"]["total"] == 25


BEYOND_64_BITS = 99999999999999999999


@pytest.mark.parametrize("query", [
    f"resources=MEMORY_MB:{BEYOND_64_BITS}",
    f"resources=VCPU:1,MEMORY_MB:{BEYOND_64_BITS}",
    f"resources1=MEMORY_MB:{BEYOND_64_BITS}&resources2=VCPU:1&group_policy=isolate",
    f"resources=MEMORY_MB:{2**63}",
])
def test_amounts_past_64_bits_fit_nowhere(cloud, query):
    """As GET /allocation_candidates answers them: nothing fits (a 500 before)."""
    assert cloud.api.get(f"/allocation_candidates?{query}", version="1.39").json[
        "allocation_requests"] == []
    assert capacity(cloud, query).json == {"total": 0, "exact": True, "inexact": 0, "roots": []}
    body = shapes(cloud, {"shapes": {"huge": query}}).json
    assert body["shapes"]["huge"]["total"] == 0


def test_queries_read_at_the_request_version(cloud):
    # granular groups come at 1.25: at 1.24 the suffix is an unknown parameter
    assert capacity(cloud, "resources1=VCPU:1", "1.24").status_code == 400
    assert capacity(cloud, "resources1=VCPU:1", "1.25").status_code == 200
    r = shapes(cloud, {"shapes": {"g": "resources1=VCPU:1"}}, "1.24")
    assert "Shape 'g': " in assert_error(r, 400)["detail"]


@pytest.mark.parametrize("roles, status", [("admin", 200), ("service", 200), ("member", 403),
                                           ("reader", 403)])
def test_policy(env, roles, status):
    kw = {"token": "alice:proj", "headers": {"X-Roles": roles}}
    for r in (capacity(env, "resources=VCPU:1", **kw), capacity(env, **kw),
              shapes(env, {"shapes": {"a": "resources=VCPU:1"}}, **kw)):
        assert r.status_code == status, r.text
        if status == 403:
            assert_error(r, 403, POLICY_DENIED, "placement.undefined_code")


@pytest.mark.parametrize("query, message", [
    ("resources=CUSTOM_NOPE:1", "No such resource class CUSTOM_NOPE"),
    ("resources=VCPU:-1", "Requested resource VCPU requires amount >= 1. Got: -1."),
    ("resources=VCPU:x", "Requested resource VCPU expected positive integer amount"),
    ("resources=VCPU:1&required=CUSTOM_NOPE", "No such trait(s): CUSTOM_NOPE"),
    ("resources=VCPU:1&limit=0", "Failed validating"),
    ("resources=VCPU:1&group_by=root", "group_by is only for GET /capacity without resources"),
    ("group_by=rack", "Invalid group_by 'rack': it is one of aggregate, root."),
    ("group_by=root&group_by=aggregate", "'group_by' may be specified only once"),
    ("limit=3", "Invalid query string parameters: limit."),
    ("member_of=not-a-uuid", "Expected 'member_of' parameter to contain valid UUID(s)"),
    ("required=CUSTOM_NOPE", "No such trait(s): CUSTOM_NOPE"),
    ("in_tree=nope", "Failed validating"),
])
def test_bad_queries_are_400(cloud, query, message):
    r = capacity(cloud, query)
    assert message in assert_error(r, 400)["detail"]


@pytest.mark.parametrize("body, message", [
    ({}, "'shapes' is a required property"),
    ({"shapes": {}}, "should be non-empty"),
    ({"shapes": {"a": 3}}, "3 is not of type 'string'"),
    ({"shapes": {"a": "resources=VCPU:1"}, "other": 1}, "Additional properties"),
    ({"shapes": {"a": "required=HW_CPU_X86_AVX2"}}, "Shape 'a': a shape asks for resources"),
    ({"shapes": {"a": "resources=VCPU:1", "b": "resources=CUSTOM_NOPE:1"}},
     "Shape 'b': Invalid resource class in resources parameter"),
    ({"shapes": {"a": "resources=VCPU:1&group_policy=sideways"}}, "Shape 'a': "),
])
def test_bad_bodies_are_400(cloud, body, message):
    r = shapes(cloud, body)
    assert message in assert_error(r, 400)["detail"]


def test_post_needs_json(cloud):
    r = cloud.api.request("POST", "/capacity", version="1.39", body=b"shapes",
                          headers={"Content-Type": "text/plain"})
    assert_error(r, 415)
    r = cloud.api.request("POST", "/capacity", version="1.39", body=b"{nope",
                          headers={"Content-Type": "application/json"})
    assert "Malformed JSON" in assert_error(r, 400)["detail"]


def _claim_first(env, query: str, root: str) -> bool:
    """Claim the first candidate of ``query`` in ``root``'s tree; False if none."""
    groups = {key[len("resources"):] for key, _ in
              (pair.split("=", 1) for pair in query.split("&")) if key.startswith("resources")}
    trees = "".join(f"&in_tree{suffix}={env.uuid[root]}" for suffix in sorted(groups))
    answer = env.api.get(f"/allocation_candidates?{query}{trees}&limit=1", version="1.39").json
    if not answer["allocation_requests"]:
        return False
    body = {**answer["allocation_requests"][0], "project_id": "p", "user_id": "u",
            "consumer_generation": None, "consumer_type": "INSTANCE"}
    body.pop("mappings")
    r = env.api.put(f"/allocations/{uuidlib.uuid4()}", version="1.39", json=body)
    assert r.status_code == 204, r.text
    return True


@pytest.mark.parametrize("query", [
    "resources=VCPU:3,MEMORY_MB:1000",  # flat: a per-class quotient; NUMA: per class sums
    "resources1=VCPU:2,MEMORY_MB:1000",  # one granular group: sums over the nodes
    "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate",
    "resources=VCPU:1&resources1=VCPU:2&group_policy=none",
])
def test_claiming_fits_copies_one_by_one_leaves_no_candidate(env, query):
    # greedy claims (the first candidate each time) reach the count on these
    env.rp("flat", inv={"VCPU": 16, "MEMORY_MB": 8192})
    env.rp("numa")
    env.rp("numa-0", parent="numa", inv={"VCPU": 5, "MEMORY_MB": 4096})
    env.rp("numa-1", parent="numa", inv={"VCPU": 7, "MEMORY_MB": 2048})
    counted = fits(capacity(env, query).json)
    assert counted and all(k >= 2 for k in counted.values())
    for root, k in counted.items():
        for _ in range(k):
            assert _claim_first(env, query, root), (root, k)
        assert not _claim_first(env, query, root)
    assert capacity(env, query).json["total"] == 0


def test_greedy_claims_may_stop_short_of_fits(env):
    """Where taking the first candidate each time does not reach the count:
    each copy puts 2 VCPU and 1024 MB on one node and 1 VCPU on another."""
    query = "resources1=VCPU:2,MEMORY_MB:1024&resources2=VCPU:1&group_policy=isolate"
    for host in ("greedy", "planned"):
        env.rp(host)
        for n, (vcpu, mb) in enumerate([(5, 3072), (4, 3072), (6, 1024)]):
            env.rp(f"{host}-{n}", parent=host, inv={"VCPU": vcpu, "MEMORY_MB": mb})
    assert fits(capacity(env, query).json) == {"greedy": 5, "planned": 5}
    claimed = 0
    while _claim_first(env, query, "greedy"):
        claimed += 1
    assert claimed == 3  # the first candidates use up the VCPU of two nodes early
    # five copies do fit, chosen otherwise: (node of group 1, node of group 2)
    for big, small in [(0, 2), (0, 2), (1, 2), (1, 2), (2, 0)]:
        env.consume({f"planned-{big}": {"VCPU": 2, "MEMORY_MB": 1024},
                     f"planned-{small}": {"VCPU": 1}})
    assert not _claim_first(env, query, "planned")
