"""GET /allocation_candidates at each microversion boundary, 1.9-1.39: the
version before a feature rejects its parameter with the reference's text,
the version that adds it accepts it; the body's shape at every version."""

import pytest

from tests.helpers.api import assert_error
from tests.helpers.candidates import (
    BAD_REQUEST,
    SHARING,
    Env,
    alloc,
    mapping,
)

AGG = "1a5c6e0e-5a4c-4b0b-8d3e-3b7c5e6a1f00"
ALL_VERSIONS = [f"1.{minor}" for minor in range(10, 40)]


@pytest.fixture
def env(api):
    return Env(api)


def schema_error(env, query, version, message, validator="additionalProperties"):
    """A 400 from the query schema: the message, then jsonschema's dump."""
    error = assert_error(env.get(query, version), 400)
    detail = error["detail"]
    assert detail.startswith(BAD_REQUEST + "Invalid query string parameters: " + message), detail
    assert f"  Failed validating '{validator}' in schema" in detail, detail
    return error


def unexpected(env, query, version, key):
    return schema_error(env, query, version,
                        f"Additional properties are not allowed ('{key}' was unexpected)")


def no_regex_match(env, query, version, key):
    return schema_error(env, query, version, f"'{key}' does not match any of the regexes: ")


# -- the shape of the body at every version ----------------------------------

def expected_body(version, cn, numa):
    """CN (root, DISK_GB, trait) with NUMA (child, VCPU) at ``version`` for
    resources=DISK_GB:10 (a single provider is used at every version)."""
    minor = int(version.split(".")[1])
    if minor < 12:
        request = {"allocations": [{"resource_provider": {"uuid": cn},
                                    "resources": {"DISK_GB": 10}}]}
    else:
        request = {"allocations": {cn: {"resources": {"DISK_GB": 10}}}}
    if minor >= 34:
        request["mappings"] = {"": [cn]}
    resources = {"DISK_GB": {"capacity": 100, "used": 5}}
    if minor >= 27:
        resources["MEMORY_MB"] = {"capacity": 1024, "used": 0}
    summaries = {cn: {"resources": resources}}
    if minor >= 17:
        summaries[cn]["traits"] = ["CUSTOM_GOLD"]
    if minor >= 29:
        summaries[cn].update(parent_provider_uuid=None, root_provider_uuid=cn)
        # from 1.29 the whole tree is summarised
        summaries[numa] = {"resources": {"VCPU": {"capacity": 8, "used": 0}}, "traits": [],
                           "parent_provider_uuid": cn, "root_provider_uuid": cn}
    return {"allocation_requests": [request], "provider_summaries": summaries}


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_body_shape_at_every_version(env, version):
    cn = env.rp("CN", inv={"DISK_GB": 100, "MEMORY_MB": 1024}, traits=["CUSTOM_GOLD"])
    numa = env.rp("NUMA", parent="CN", inv={"VCPU": 8})
    env.consume({"CN": {"DISK_GB": 5}})
    r = env.get("resources=DISK_GB:10", version)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/json"
    assert r.json == expected_body(version, cn, numa)


def test_latest_is_1_39(env):
    cn = env.rp("CN", inv={"VCPU": 8})
    latest = env.api.get(env.path("resources=VCPU:1"), version="latest")
    assert latest.headers["OpenStack-API-Version"] == "placement 1.39"
    assert latest.json == env.get("resources=VCPU:1", "1.39").json
    assert latest.json["allocation_requests"][0]["mappings"] == {"": [cn]}


# -- 1.10: the route appears -------------------------------------------------

def test_route_absent_at_1_9(env):
    env.rp("CN", inv={"VCPU": 8})
    assert_error(env.get("resources=VCPU:1", "1.9"), 404)
    assert env.get("resources=VCPU:1", "1.10").status_code == 200


def test_resources_required_before_1_25(env):
    schema_error(env, "", "1.10", "'resources' is a required property", "required")
    schema_error(env, "", "1.24", "'resources' is a required property", "required")


# -- 1.12: allocation requests keyed by provider -----------------------------

@pytest.mark.parametrize("version", ["1.10", "1.11"])
def test_list_form_before_1_12(env, version):
    env.rp("CN", inv={"VCPU": 8}, aggs=["agg"])
    env.rp("SS", inv={"DISK_GB": 100}, traits=[SHARING], aggs=["agg"])
    r = env.get("resources=VCPU:1,DISK_GB:10", version)
    (request,) = r.json["allocation_requests"]
    assert sorted(request["allocations"], key=lambda a: a["resources"] == {"DISK_GB": 10}) == [
        {"resource_provider": {"uuid": env.uuid["CN"]}, "resources": {"VCPU": 1}},
        {"resource_provider": {"uuid": env.uuid["SS"]}, "resources": {"DISK_GB": 10}}]


def test_dict_form_from_1_12(env):
    env.rp("CN", inv={"VCPU": 8}, aggs=["agg"])
    env.rp("SS", inv={"DISK_GB": 100}, traits=[SHARING], aggs=["agg"])
    r = env.get("resources=VCPU:1,DISK_GB:10", "1.12")
    assert r.json["allocation_requests"] == [{"allocations": {
        env.uuid["CN"]: {"resources": {"VCPU": 1}},
        env.uuid["SS"]: {"resources": {"DISK_GB": 10}}}}]


def test_a_candidate_is_a_valid_allocation_body(env):
    # what clients do with a candidate: PUT it back as an allocation
    env.rp("CN", inv={"VCPU": 8, "MEMORY_MB": 1024})
    (request,) = env.get("resources=VCPU:2,MEMORY_MB:512", "1.34").json["allocation_requests"]
    body = {**request, "project_id": "p", "user_id": "u", "consumer_generation": None}
    r = env.api.put(f"/allocations/{AGG}", version="1.34", json=body)
    assert r.status_code == 204, r.text
    answer = env.ok("resources=VCPU:2,MEMORY_MB:512", "1.34")
    assert answer.summaries["CN"]["resources"]["VCPU"] == {"capacity": 8, "used": 2}


# -- 1.15: cache headers -----------------------------------------------------

def test_cache_headers_from_1_15(env):
    env.rp("CN", inv={"VCPU": 8})
    before = env.get("resources=VCPU:1", "1.14")
    assert "Cache-Control" not in before.headers and "Last-Modified" not in before.headers
    after = env.get("resources=VCPU:1", "1.15")
    assert after.headers["Cache-Control"] == "no-cache"
    assert after.headers["Last-Modified"].endswith(" GMT")


# -- 1.16: limit -------------------------------------------------------------

def test_limit_from_1_16(env):
    for name in ("A", "B", "C"):
        env.rp(name, inv={"VCPU": 8})
    unexpected(env, "resources=VCPU:1&limit=2", "1.15", "limit")
    assert len(env.ok("resources=VCPU:1&limit=2", "1.16").requests) == 2
    assert len(env.ok("resources=VCPU:1&limit=5", "1.16").requests) == 3


# -- 1.17: required traits, traits in summaries ------------------------------

def test_required_from_1_17(env):
    env.rp("AVX", inv={"VCPU": 8}, traits=["HW_CPU_X86_AVX"])
    env.rp("PLAIN", inv={"VCPU": 8})
    unexpected(env, "resources=VCPU:1&required=HW_CPU_X86_AVX", "1.16", "required")
    answer = env.ok("resources=VCPU:1&required=HW_CPU_X86_AVX", "1.17")
    assert answer.allocs == {alloc(AVX={"VCPU": 1})}
    assert answer.summaries["AVX"]["traits"] == ["HW_CPU_X86_AVX"]
    assert "traits" not in env.ok("resources=VCPU:1", "1.16").summaries["AVX"]


# -- 1.21: member_of ---------------------------------------------------------

def test_member_of_from_1_21(env):
    env.rp("IN", inv={"VCPU": 8}, aggs=["agg1"])
    env.rp("IN2", inv={"VCPU": 8}, aggs=["agg2"])
    env.rp("OUT", inv={"VCPU": 8})
    unexpected(env, "resources=VCPU:1&member_of={agg1}", "1.20", "member_of")
    assert env.ok("resources=VCPU:1&member_of={agg1}", "1.21").allocs == {alloc(IN={"VCPU": 1})}
    assert env.ok("resources=VCPU:1&member_of=in:{agg1},{agg2}", "1.21").allocs == {
        alloc(IN={"VCPU": 1}), alloc(IN2={"VCPU": 1})}


# -- 1.22: forbidden traits --------------------------------------------------

def test_forbidden_traits_from_1_22(env):
    env.rp("AVX", inv={"VCPU": 8}, traits=["HW_CPU_X86_AVX"])
    env.rp("PLAIN", inv={"VCPU": 8})
    env.bad("resources=VCPU:1&required=!HW_CPU_X86_AVX", "1.21",
            "Invalid query string parameters: Expected 'required' parameter value of the form:"
            " HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !HW_CPU_X86_AVX")
    assert env.ok("resources=VCPU:1&required=!HW_CPU_X86_AVX", "1.22").allocs == {
        alloc(PLAIN={"VCPU": 1})}


def test_conflicting_traits_checked_from_1_22(env):
    env.rp("AVX", inv={"VCPU": 8}, traits=["HW_CPU_X86_AVX"])
    # before 1.22 '!' is a bad format, so the conflict is not reached
    env.bad("resources=VCPU:1&required=HW_CPU_X86_AVX,!HW_CPU_X86_AVX", "1.21",
            "Invalid query string parameters: Expected 'required' parameter value of the form:"
            " HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: HW_CPU_X86_AVX,!HW_CPU_X86_AVX")
    env.bad("resources=VCPU:1&required=HW_CPU_X86_AVX,!HW_CPU_X86_AVX", "1.22",
            "Conflicting required and forbidden traits found in the following traits keys: "
            "required: (HW_CPU_X86_AVX)")


# -- 1.23: error codes -------------------------------------------------------

def test_error_code_from_1_23(env):
    assert "code" not in env.bad("resources=VCPU:0", "1.22",
                                 "Requested resource VCPU requires amount >= 1. Got: 0.")
    env.bad("resources=VCPU:0", "1.23", "Requested resource VCPU requires amount >= 1. Got: 0.",
            "placement.undefined_code")


# -- 1.24: repeated member_of ------------------------------------------------

def test_repeated_member_of_from_1_24(env):
    env.rp("BOTH", inv={"VCPU": 8}, aggs=["agg1", "agg2"])
    env.rp("ONE", inv={"VCPU": 8}, aggs=["agg1"])
    query = "resources=VCPU:1&member_of={agg1}&member_of={agg2}"
    env.bad(query, "1.23", "Multiple member_of parameters are not supported",
            "placement.undefined_code")
    assert env.ok(query, "1.24").allocs == {alloc(BOTH={"VCPU": 1})}


# -- 1.25: granular groups and group_policy ----------------------------------

def test_granular_groups_from_1_25(env):
    env.rp("CN", inv={"VCPU": 8, "MEMORY_MB": 1024})
    unexpected(env, "resources=VCPU:1&resources1=MEMORY_MB:1", "1.24", "resources1")
    unexpected(env, "resources=VCPU:1&group_policy=none", "1.24", "group_policy")
    answer = env.ok("resources1=VCPU:1&resources2=MEMORY_MB:1&group_policy=none", "1.25")
    assert answer.allocs == {alloc(CN={"VCPU": 1, "MEMORY_MB": 1})}
    assert env.ok("resources1=VCPU:1&resources2=MEMORY_MB:1&group_policy=isolate",
                  "1.25").allocs == set()


def test_granular_keys_need_integer_suffixes_before_1_33(env):
    no_regex_match(env, "resources=VCPU:1&resources0=VCPU:1", "1.25", "resources0")
    no_regex_match(env, "resources=VCPU:1&resources_A=VCPU:1", "1.32", "resources_A")


# -- 1.26: reserved may equal total ------------------------------------------

def test_fully_reserved_inventory_is_no_candidate(env):
    env.rp("FULL")
    r = env.api.put(f"/resource_providers/{env.uuid['FULL']}/inventories", version="1.26",
                    json={"resource_provider_generation": 0,
                          "inventories": {"VCPU": {"total": 4, "reserved": 4}}})
    assert r.status_code == 200, r.text
    env.rp("FREE", inv={"VCPU": 4})
    answer = env.ok("resources=VCPU:1", "1.26")
    assert answer.allocs == {alloc(FREE={"VCPU": 1})}
    assert answer.names == {"FREE"}


# -- 1.27: every class in summaries ------------------------------------------

def test_all_classes_in_summaries_from_1_27(env):
    env.rp("CN", inv={"VCPU": 8, "MEMORY_MB": 1024, "DISK_GB": 100})
    before = env.ok("resources=VCPU:1", "1.26").summaries["CN"]["resources"]
    assert before == {"VCPU": {"capacity": 8, "used": 0}}
    after = env.ok("resources=VCPU:1", "1.27").summaries["CN"]["resources"]
    assert set(after) == {"VCPU", "MEMORY_MB", "DISK_GB"}


# -- 1.29: nested providers --------------------------------------------------

def tree(env):
    env.rp("CN", inv={"MEMORY_MB": 1024})
    env.rp("NUMA", parent="CN", inv={"VCPU": 8})


def test_before_1_29_no_candidate_spans_a_tree(env):
    tree(env)
    assert env.ok("resources=VCPU:1,MEMORY_MB:1", "1.28").allocs == set()
    granular = "resources1=VCPU:1&resources2=MEMORY_MB:1&group_policy=none"
    assert env.ok(granular, "1.28").allocs == set()
    answer = env.ok("resources=VCPU:1,MEMORY_MB:1", "1.29")
    assert answer.allocs == {alloc(NUMA={"VCPU": 1}, CN={"MEMORY_MB": 1})}
    assert env.ok(granular, "1.29").allocs == answer.allocs


def test_before_1_29_a_child_alone_is_a_candidate(env):
    tree(env)
    answer = env.ok("resources=VCPU:1", "1.28")
    assert answer.allocs == {alloc(NUMA={"VCPU": 1})}
    # only the provider used is summarised, without parent or root
    assert answer.summaries == {"NUMA": {"resources": {"VCPU": {"capacity": 8, "used": 0}},
                                         "traits": []}}


def test_before_1_29_sharing_across_trees_is_fine(env):
    env.rp("CN", inv={"VCPU": 8}, aggs=["agg"])
    env.rp("SS", inv={"DISK_GB": 100}, traits=[SHARING], aggs=["agg"])
    assert env.ok("resources=VCPU:1,DISK_GB:1", "1.28").allocs == {
        alloc(CN={"VCPU": 1}, SS={"DISK_GB": 1})}


def test_parent_and_root_in_summaries_from_1_29(env):
    tree(env)
    answer = env.ok("resources=VCPU:1", "1.29")
    assert answer.names == {"CN", "NUMA"}
    assert answer.summaries["NUMA"]["parent_provider_uuid"] == env.uuid["CN"]
    assert answer.summaries["NUMA"]["root_provider_uuid"] == env.uuid["CN"]
    assert answer.summaries["CN"]["parent_provider_uuid"] is None


# -- 1.31: in_tree -----------------------------------------------------------

def test_in_tree_from_1_31(env):
    env.rp("A", inv={"VCPU": 8})
    env.rp("B", inv={"VCPU": 8})
    no_regex_match(env, "resources=VCPU:1&in_tree={A}", "1.30", "in_tree")
    no_regex_match(env, "resources1=VCPU:1&in_tree1={A}", "1.30", "in_tree1")
    assert env.ok("resources=VCPU:1&in_tree={A}", "1.31").allocs == {alloc(A={"VCPU": 1})}
    assert env.ok("resources1=VCPU:1&in_tree1={B}", "1.31").allocs == {alloc(B={"VCPU": 1})}


# -- 1.32: forbidden aggregates ----------------------------------------------

@pytest.mark.parametrize("value", ["!{agg1}", "!in:{agg1},{agg2}"])
def test_forbidden_aggregates_from_1_32(env, value):
    env.rp("IN", inv={"VCPU": 8}, aggs=["agg1"])
    env.rp("OUT", inv={"VCPU": 8})
    env.agg("agg2")
    env.bad(f"resources=VCPU:1&member_of={value}", "1.31",
            "Forbidden member_of parameters are not supported in the specified microversion",
            "placement.undefined_code")
    env.bad(f"resources1=VCPU:1&member_of1={value}", "1.31",
            "Forbidden member_of1 parameters are not supported in the specified microversion",
            "placement.undefined_code")
    assert env.ok(f"resources=VCPU:1&member_of={value}", "1.32").allocs == {
        alloc(OUT={"VCPU": 1})}


# -- 1.33: string suffixes ---------------------------------------------------

def test_string_suffixes_from_1_33(env):
    env.rp("CN", inv={"VCPU": 8, "MEMORY_MB": 1024})
    no_regex_match(env, "resources_COMPUTE=VCPU:1", "1.32", "resources_COMPUTE")
    query = "resources_COMPUTE=VCPU:1&resources-mem=MEMORY_MB:1&resources42=VCPU:1"
    answer = env.ok(query + "&group_policy=none", "1.33")
    assert answer.allocs == {alloc(CN={"VCPU": 2, "MEMORY_MB": 1})}
    long_suffix = "x" * 64
    assert env.ok(f"resources{long_suffix}=VCPU:1", "1.33").allocs == {alloc(CN={"VCPU": 1})}
    no_regex_match(env, f"resources{long_suffix}y=VCPU:1", "1.33", f"resources{long_suffix}y")


# -- 1.34: mappings ----------------------------------------------------------

def test_mappings_from_1_34(env):
    env.rp("CN", inv={"VCPU": 8})
    env.rp("NUMA", parent="CN", inv={"MEMORY_MB": 1024})
    query = "resources=VCPU:1&resources_M=MEMORY_MB:1"
    (before,) = env.ok(query, "1.33").requests
    assert list(before) == ["allocations"]
    assert env.ok(query, "1.34").with_mappings == {
        (alloc(CN={"VCPU": 1}, NUMA={"MEMORY_MB": 1}), mapping({"": ["CN"], "_M": ["NUMA"]}))}


# -- 1.35: root_required -----------------------------------------------------

def test_root_required_from_1_35(env):
    env.rp("GOLD", inv={"VCPU": 8}, traits=["CUSTOM_GOLD"])
    env.rp("PLAIN", inv={"VCPU": 8})
    no_regex_match(env, "resources=VCPU:1&root_required=CUSTOM_GOLD", "1.34", "root_required")
    assert env.ok("resources=VCPU:1&root_required=CUSTOM_GOLD", "1.35").allocs == {
        alloc(GOLD={"VCPU": 1})}
    assert env.ok("resources=VCPU:1&root_required=!CUSTOM_GOLD", "1.35").allocs == {
        alloc(PLAIN={"VCPU": 1})}


# -- 1.36: same_subtree and resourceless groups ------------------------------

def test_same_subtree_from_1_36(env):
    env.rp("CN", traits=["CUSTOM_ROOT"])
    env.rp("NUMA", parent="CN", inv={"VCPU": 8})
    no_regex_match(env, "resources_A=VCPU:1&same_subtree=_A", "1.35", "same_subtree")
    assert env.ok("resources_A=VCPU:1&same_subtree=_A", "1.36").allocs == {
        alloc(NUMA={"VCPU": 1})}


def test_resourceless_groups_from_1_36(env):
    env.rp("CN", traits=["CUSTOM_ROOT"])
    env.rp("NUMA", parent="CN", inv={"VCPU": 8})
    env.bad("resources_A=VCPU:1&required_R=CUSTOM_ROOT", "1.35",
            "All traits parameters must be associated with resources.  Found the following "
            "orphaned traits keys: required_R", "placement.undefined_code")
    answer = env.ok("resources_A=VCPU:1&required_R=CUSTOM_ROOT&same_subtree=_A,_R"
                    "&group_policy=none", "1.36")
    assert answer.with_mappings == {
        (alloc(NUMA={"VCPU": 1}), mapping({"_A": ["NUMA"], "_R": ["CN"]}))}


# -- 1.39: any-traits and repeated required ----------------------------------

def test_any_traits_from_1_39(env):
    env.rp("AVX", inv={"VCPU": 8}, traits=["HW_CPU_X86_AVX"])
    env.rp("AVX2", inv={"VCPU": 8}, traits=["HW_CPU_X86_AVX2"])
    env.rp("PLAIN", inv={"VCPU": 8})
    query = "resources=VCPU:1&required=in:HW_CPU_X86_AVX,HW_CPU_X86_AVX2"
    env.bad(query, "1.38",
            "Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only "
            "supported since microversion 1.39. Got: in:HW_CPU_X86_AVX,HW_CPU_X86_AVX2",
            "placement.undefined_code")
    assert env.ok(query, "1.39").allocs == {alloc(AVX={"VCPU": 1}), alloc(AVX2={"VCPU": 1})}


def test_repeated_required_last_wins_before_1_39(env):
    env.rp("AVX", inv={"VCPU": 8}, traits=["HW_CPU_X86_AVX"])
    env.rp("BOTH", inv={"VCPU": 8}, traits=["HW_CPU_X86_AVX", "HW_CPU_X86_AVX2"])
    query = "resources=VCPU:1&required=HW_CPU_X86_AVX2&required=HW_CPU_X86_AVX"
    assert env.ok(query, "1.38").allocs == {alloc(AVX={"VCPU": 1}), alloc(BOTH={"VCPU": 1})}
    assert env.ok(query, "1.39").allocs == {alloc(BOTH={"VCPU": 1})}
    # the earlier values are not even parsed before 1.39
    assert env.ok("resources=VCPU:1&required=,&required=HW_CPU_X86_AVX2", "1.38").allocs == {
        alloc(BOTH={"VCPU": 1})}
    env.bad("resources=VCPU:1&required=,&required=HW_CPU_X86_AVX2", "1.39",
            "Invalid query string parameters: Expected 'required' parameter value of the form:"
            " HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty trait in: ,",
            "placement.undefined_code")


# -- HTTP: policy, methods, content negotiation ------------------------------

POLICY_DENIED = "Policy does not allow placement:allocation_candidates:list to be performed."


@pytest.mark.parametrize("roles, status", [("admin", 200), ("service", 200), ("member", 403),
                                           ("reader", 403)])
def test_policy(env, roles, status):
    r = env.api.get(env.path("resources=VCPU:1"), version="1.39", token="alice:proj",
                    headers={"X-Roles": roles})
    assert r.status_code == status, r.text
    if status == 403:
        assert_error(r, 403, POLICY_DENIED, "placement.undefined_code")


def test_policy_is_checked_before_the_query(env):
    r = env.api.get(env.path("resources=VCPU:0"), version="1.39", token="alice:proj")
    assert_error(r, 403, POLICY_DENIED)


def test_only_get_is_allowed(env):
    r = env.api.post("/allocation_candidates?resources=VCPU:1", version="1.39", json={})
    assert_error(r, 405, "The method POST is not allowed for this resource.")
    assert r.headers["Allow"] == "GET"


def test_accept_must_allow_json(env):
    r = env.api.get(env.path("resources=VCPU:1"), version="1.39",
                    headers={"Accept": "text/plain"})
    assert r.status_code == 406
    assert "Only application/json is provided" in r.text
