"""Fuzzing every route with malformed input: whatever arrives, the answer is
never a 5xx, and every error carries the placement error body.

Hypothesis draws methods, microversions, path parameters, query strings,
headers and JSON (or not-JSON) bodies; a small provider tree with inventory
and allocations exists so that requests reach deep code paths.
"""

import json
import string
import uuid
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placer.route_table import ROUTES
from tests.helpers import factories
from tests.helpers.floors import examples
from tests.helpers.fuzz import check_answer

RP_UUID = "11111111-2222-4333-8444-555555555555"
CONSUMER = "99999999-8888-4777-8666-555555555555"

names = st.sampled_from(["VCPU", "MEMORY_MB", "CUSTOM_X", "HW_CPU_X86_AVX2", "vcpu", "",
                         "MISC_SHARES_VIA_AGGREGATE", "CUSTOM_", "X" * 300, "\x00", "é",
                         "CUSTOM_A%2FB"])
uuids = st.sampled_from([RP_UUID, CONSUMER, str(uuid.UUID(int=7)), "not-a-uuid", "", "%00",
                         RP_UUID.upper(), RP_UUID.replace("-", ""), "x" * 40])
path_values = {"uuid": uuids, "consumer_uuid": uuids, "name": names, "resource_class": names}

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=8), names, uuids)
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.one_of(names, uuids, st.sampled_from([
        "allocations", "resources", "resource_provider", "uuid", "name", "project_id",
        "user_id", "consumer_generation", "consumer_type", "resource_provider_generation",
        "inventories", "total", "reserved", "max_unit", "min_unit", "step_size",
        "allocation_ratio", "traits", "aggregates", "parent_provider_uuid", "generation",
        "mappings"])), inner, max_size=4)), max_leaves=12)

query_keys = st.sampled_from([
    "resources", "resources1", "resources_A", "required", "required1", "member_of",
    "member_of1", "in_tree", "in_tree2", "limit", "group_policy", "root_required",
    "same_subtree", "name", "uuid", "associated", "project_id", "user_id",
    "consumer_type", "bogus"])
query_values = st.one_of(st.sampled_from([
    "VCPU:1", "VCPU:1,MEMORY_MB:512", "VCPU:0", "VCPU:-1", "VCPU:x", "VCPU", ":",
    "HW_CPU_X86_AVX2", "!HW_CPU_X86_AVX2", "in:HW_CPU_X86_AVX2,!CUSTOM_X", "in:", "!",
    f"in:{RP_UUID}", f"!in:{RP_UUID}", f"!{RP_UUID}", RP_UUID, "isolate", "none", "1",
    "0", "-5", "true", "false", "_A,_B", "startswith:CUSTOM", "all", "unknown", "%ff"]),
    st.text(alphabet=string.printable, max_size=12))
queries = st.lists(st.tuples(query_keys, query_values), max_size=5)


def _fill(template: str, draw) -> str:
    path = template
    for key, values in path_values.items():
        if "{" + key + "}" in path:
            path = path.replace("{" + key + "}", quote(draw(values), safe="%"))
    return path


@st.composite
def requests(draw):
    template = draw(st.sampled_from(sorted(ROUTES.paths)))
    methods = [r.method for r in ROUTES.paths[template]] + ["PATCH", "HEAD"]
    method = draw(st.sampled_from(methods))
    path = _fill(template, draw)
    qs = "&".join(f"{k}={quote(v, safe='%:,!')}" for k, v in draw(queries))
    version = draw(st.one_of(st.none(), st.sampled_from(
        ["1.0", "1.9", "1.12", "1.20", "1.28", "1.29", "1.33", "1.38", "latest", "1.40",
         "bogus"])))
    headers = {}
    body = None
    if method in ("PUT", "POST"):
        kind = draw(st.sampled_from(["json", "json", "json", "garbage", "empty"]))
        if kind == "json":
            body = json.dumps(draw(json_values), allow_nan=True)
        elif kind == "garbage":
            body = draw(st.text(max_size=20))
        else:
            body = ""
        headers["Content-Type"] = draw(st.sampled_from(
            ["application/json", "application/json; charset=utf-8", "text/plain", ""]))
    if draw(st.booleans()):
        headers["Accept"] = draw(st.sampled_from(["application/json", "text/plain", "*/*",
                                                  "text/html", "application/*", "garbage"]))
    return method, f"{path}?{qs}" if qs else path, version, headers, body


@pytest.fixture
def world(api, db):
    root = factories.provider(db, "root", uuid=RP_UUID, inventory={"VCPU": 8, "MEMORY_MB": 4096},
                              traits=["HW_CPU_X86_AVX2"], aggregates=[str(uuid.UUID(int=7))])
    factories.provider(db, "child", parent=root, inventory={"VGPU": 1})
    body = {"allocations": {root: {"resources": {"VCPU": 1}}}, "project_id": "p",
            "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"}
    assert api.put(f"/allocations/{CONSUMER}", version="1.38", json=body).status_code == 204
    return api


@settings(max_examples=examples(250),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(request=requests())
def test_no_request_gets_a_server_error(world, request):
    check_answer(world, request)
