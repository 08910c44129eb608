"""Fuzzing the routes only Placer has (GET and POST /capacity, GET
/allocation_candidates/explain, GET /audit, GET /openapi.json, GET /metrics
with every gauge on) as tests/functional/test_fuzz.py fuzzes every route:
whatever arrives, never a 5xx, and every error carries the placement error
body. Amounts past 64 bits are among the inputs (the capacity count and
explain once answered them 500), in queries, shapes and numbers.

The cloud has a provider tree, a shared pool, allocations and faults the
audit finds, so that requests reach the counting, explaining and auditing
code."""

import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placer import conf as placer_conf
from placer import policy, wsgi
from placer.db import tables as t
from placer.route_table import ROUTES
from tests.helpers import factories
from tests.helpers.api import Api
from tests.helpers.floors import examples
from tests.helpers.fuzz import check_answer

RP_UUID = "11111111-2222-4333-8444-555555555555"
POOL_UUID = "11111111-2222-4333-8444-666666666666"
AGG = "00000000-0000-0000-0000-000000000007"
CONSUMER = "99999999-8888-4777-8666-555555555555"
HUGE = ["99999999999999999999", str(2**63), str(2**64), str(2**31), "1" + "0" * 40]

PLACER_ONLY = {("GET", "/capacity"), ("POST", "/capacity"),
               ("GET", "/allocation_candidates/explain"), ("GET", "/audit"),
               ("GET", "/openapi.json"), ("GET", "/metrics")}


def test_the_list_is_every_route_only_placer_has():
    own = {name for name, _, _ in policy._PLACER_RULES}
    found = {(r.method, r.path) for r in ROUTES if r.policy in own or r.open and r.path != "/"}
    assert found == PLACER_ONLY


amounts = st.one_of(st.sampled_from(["1", "2", "512", *HUGE]),
                    st.sampled_from(["0", "-1", "x", ""]),
                    st.integers(min_value=-2**70, max_value=2**70).map(str))
classes = st.sampled_from(["VCPU", "VCPU", "MEMORY_MB", "DISK_GB", "CUSTOM_NOPE", "vcpu", ""])
resources = st.lists(st.tuples(classes, amounts), min_size=1, max_size=3).map(
    lambda pairs: ",".join(f"{rc}:{n}" for rc, n in pairs))
query_values = st.one_of(
    resources, amounts,
    st.sampled_from(["over_capacity", "split_consumers", "unused_users", "nope", "root",
                     "aggregate", "isolate", "none", "HW_CPU_X86_AVX2", "!HW_CPU_X86_AVX2",
                     f"in:{AGG}", AGG, RP_UUID, POOL_UUID, "1.0", "1.39", "latest", "%ff",
                     "1,2", "_A"]),
    st.text(alphabet=string.printable, max_size=10))
query_keys = st.sampled_from([
    "resources", "resources1", "resources2", "required", "required1", "member_of",
    "in_tree", "limit", "group_policy", "group_by", "provider", "root_required",
    "same_subtree", "kind", "idle_days", "version", "bogus"])
queries = st.lists(st.tuples(query_keys, query_values), max_size=5)
shape_text = st.one_of(
    resources.map(lambda r: f"resources={r}"),
    st.tuples(resources, query_keys, query_values).map(
        lambda x: f"resources={x[0]}&{x[1]}={x[2]}"),
    st.text(max_size=12))
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                    shape_text)
bodies = st.one_of(
    st.dictionaries(st.text(max_size=6), shape_text, min_size=1, max_size=3).map(
        lambda shapes: {"shapes": shapes}),
    st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["shapes", "a", "small", ""]), inner, max_size=3)),
        max_leaves=8))


# each route's own parameters, drawn more often than the others
OWN_KEYS = {
    "/capacity": ["resources", "resources", "resources1", "group_by", "limit", "member_of",
                  "required", "in_tree"],
    "/allocation_candidates/explain": ["resources", "resources", "provider", "limit",
                                       "required", "group_policy"],
    "/audit": ["kind", "kind", "limit", "idle_days"],
    "/openapi.json": ["version"],
    "/metrics": [],
}
OWN_VALUES = {
    "resources": resources, "resources1": resources, "provider": st.sampled_from(
        [RP_UUID, POOL_UUID, "nope"]), "group_by": st.sampled_from(["root", "aggregate", "x"]),
    "kind": st.sampled_from(["over_capacity", "split_consumers", "without_inventory",
                             "unused_users", "nope"]),
    "limit": amounts, "idle_days": amounts, "version": st.sampled_from(
        ["1.0", "1.39", "latest", HUGE[0], "x"]),
}


@st.composite
def own_query(draw, path):
    pairs = []
    for key in draw(st.lists(st.sampled_from(OWN_KEYS[path] or ["bogus"]), max_size=4)):
        pairs.append((key, draw(OWN_VALUES.get(key, query_values))))
    if draw(st.integers(0, 3)) == 0:
        pairs += draw(queries)
    return pairs


@st.composite
def requests(draw):
    method, path = draw(st.sampled_from(sorted(PLACER_ONLY)))
    qs = "&".join(f"{k}={v}" for k, v in draw(own_query(path)))
    version = draw(st.one_of(st.sampled_from(["1.39", "1.39", "latest", "1.25"]), st.none(),
                             st.sampled_from(["1.0", "1.9", "1.10", "1.40", "bogus"])))
    headers, body = {}, None
    if method == "POST":
        kind = draw(st.sampled_from(["json", "json", "json", "garbage"]))
        body = (json.dumps(draw(bodies), allow_nan=True) if kind == "json"
                else draw(st.text(max_size=20)))
        headers["Content-Type"] = draw(st.sampled_from(["application/json",
                                                        "application/json", "text/plain"]))
    if draw(st.integers(0, 3)) == 0:
        headers["Accept"] = draw(st.sampled_from(["application/json", "text/plain", "*/*",
                                                  "application/openmetrics-text", "garbage"]))
    return method, f"{path}?{qs}" if qs else path, version, headers, body


@pytest.fixture
def world(db, tmp_path, fresh_policy):
    path = tmp_path / "placement.conf"
    path.write_text("\n".join([
        "[api]", "auth_strategy = noauth2", "[placement_database]", "connection = sqlite://",
        "[placer]", "metrics_enabled = True", "capacity_metrics = True", "audit_metrics = True",
        "capacity_shapes = small=resources=VCPU:1,MEMORY_MB:512",
        f"capacity_shapes = huge=resources=MEMORY_MB:{HUGE[0]}"]) + "\n")
    api = Api(wsgi.create_app(placer_conf.new_config(["--config-file", str(path)]), db))
    root = factories.provider(db, "root", uuid=RP_UUID, inventory={"VCPU": 8, "MEMORY_MB": 4096},
                              traits=["HW_CPU_X86_AVX2"], aggregates=[AGG])
    factories.provider(db, "child", parent=root, inventory={"VGPU": 1})
    factories.provider(db, "pool", uuid=POOL_UUID, inventory={"DISK_GB": 100},
                       traits=["MISC_SHARES_VIA_AGGREGATE"], aggregates=[AGG])
    factories.provider(db, "idle")
    body = {"allocations": {root: {"resources": {"VCPU": 4}},
                            POOL_UUID: {"resources": {"DISK_GB": 10}}},
            "project_id": "p", "user_id": "u", "consumer_generation": None,
            "consumer_type": "INSTANCE"}
    assert api.put(f"/allocations/{CONSUMER}", version="1.38", json=body).status_code == 204
    # faults: over capacity, an allocation without inventory
    db.write(lambda conn: conn.execute(t.inventories.update().where(
        t.inventories.c.total == 8).values(total=2)))
    factories.allocation(db, POOL_UUID, "VCPU", 3)
    return api


@settings(max_examples=examples(150),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(request=requests())
def test_no_request_gets_a_server_error(world, request):
    check_answer(world, request)


@pytest.mark.parametrize("path", [
    f"/capacity?resources=MEMORY_MB:{HUGE[0]}",
    f"/capacity?resources=VCPU:1,MEMORY_MB:{HUGE[1]}&limit={HUGE[0]}",
    f"/allocation_candidates/explain?resources=MEMORY_MB:{HUGE[0]}",
    f"/allocation_candidates/explain?resources=MEMORY_MB:{HUGE[0]}&provider={RP_UUID}",
    f"/audit?limit={HUGE[0]}&idle_days={HUGE[4]}",
    f"/openapi.json?version={HUGE[0]}",
    "/metrics",
])
def test_amounts_past_64_bits_answer(world, path):
    r = world.get(path, version="1.39")
    assert r.status_code in (200, 400), r.text
