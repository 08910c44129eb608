"""provider_summaries of GET /allocation_candidates: which providers appear
(those used before 1.29, their whole trees from 1.29, only the trees of the
candidates kept by limit), and what each summary says (capacity and usage,
traits, parent and root)."""

import pytest

from tests.helpers.candidates import SHARING, Env, alloc


@pytest.fixture
def env(api):
    return Env(api)


def test_no_candidates_no_summaries(env):
    env.rp("CN", inv={"VCPU": 1})
    answer = env.ok("resources=VCPU:2")
    assert answer.json == {"allocation_requests": [], "provider_summaries": {}}


def test_capacity_and_usage(env):
    env.rp("CN", inv={"VCPU": {"total": 10, "reserved": 2, "allocation_ratio": 1.5},
                      "MEMORY_MB": {"total": 1000, "reserved": 0, "allocation_ratio": 0.5},
                      "DISK_GB": {"total": 3, "allocation_ratio": 1.1}})
    env.consume({"CN": {"VCPU": 3, "MEMORY_MB": 100}})
    env.consume({"CN": {"VCPU": 2}})
    summary = env.ok("resources=VCPU:1").summaries["CN"]
    assert summary["resources"] == {
        "VCPU": {"capacity": 12, "used": 5},  # (10 - 2) * 1.5
        "MEMORY_MB": {"capacity": 500, "used": 100},
        "DISK_GB": {"capacity": 3, "used": 0},  # int(3.3)
    }


def test_traits_are_listed(env):
    env.rp("CN", inv={"VCPU": 4}, traits=["HW_CPU_X86_AVX", "CUSTOM_B", "CUSTOM_A"])
    env.rp("SS", inv={"DISK_GB": 10}, traits=[SHARING], aggs=["agg"])
    env.rp("CN2", inv={"VCPU": 4}, aggs=["agg"])
    answer = env.ok("resources=DISK_GB:1")
    assert answer.summaries["SS"]["traits"] == [SHARING]
    traits = env.ok("resources=VCPU:1").summaries["CN"]["traits"]
    assert sorted(traits) == ["CUSTOM_A", "CUSTOM_B", "HW_CPU_X86_AVX"]
    assert env.ok("resources=VCPU:1").summaries["CN2"]["traits"] == []


def test_whole_tree_from_1_29(env):
    env.rp("CN", inv={"MEMORY_MB": 1024}, traits=["CUSTOM_HOST"])
    env.rp("NUMA0", parent="CN", inv={"VCPU": 4})
    env.rp("NUMA1", parent="CN", inv={"VCPU": 4})
    env.rp("NIC", parent="NUMA1")  # no inventory at all
    env.consume({"NUMA1": {"VCPU": 4}})
    answer = env.ok("resources=VCPU:1")
    assert answer.allocs == {alloc(NUMA0={"VCPU": 1})}
    cn, numa1 = env.uuid["CN"], env.uuid["NUMA1"]
    assert answer.summaries == {
        "CN": {"resources": {"MEMORY_MB": {"capacity": 1024, "used": 0}},
               "traits": ["CUSTOM_HOST"], "parent_provider_uuid": None, "root_provider_uuid": cn},
        "NUMA0": {"resources": {"VCPU": {"capacity": 4, "used": 0}}, "traits": [],
                  "parent_provider_uuid": cn, "root_provider_uuid": cn},
        "NUMA1": {"resources": {"VCPU": {"capacity": 4, "used": 4}}, "traits": [],
                  "parent_provider_uuid": cn, "root_provider_uuid": cn},
        "NIC": {"resources": {}, "traits": [], "parent_provider_uuid": numa1,
                "root_provider_uuid": cn},
    }


def test_only_the_providers_used_before_1_29(env):
    env.rp("CN", inv={"MEMORY_MB": 1024})
    env.rp("NUMA0", parent="CN", inv={"VCPU": 4})
    env.rp("NUMA1", parent="CN", inv={"VCPU": 4, "MEMORY_MB": 512})
    answer = env.ok("resources=VCPU:1", "1.28")
    assert answer.names == {"NUMA0", "NUMA1"}
    assert answer.summaries["NUMA1"] == {"resources": {
        "VCPU": {"capacity": 4, "used": 0}, "MEMORY_MB": {"capacity": 512, "used": 0}},
        "traits": []}
    assert env.ok("resources=VCPU:1", "1.26").summaries["NUMA1"] == {
        "resources": {"VCPU": {"capacity": 4, "used": 0}}, "traits": []}


def test_requested_classes_of_every_group_before_1_27(env):
    env.rp("CN", inv={"VCPU": 4, "MEMORY_MB": 1024, "DISK_GB": 10})
    answer = env.ok("resources=VCPU:1&resources1=MEMORY_MB:1", "1.26")
    assert set(answer.summaries["CN"]["resources"]) == {"VCPU", "MEMORY_MB"}


def test_trees_of_the_candidates_only(env):
    env.rp("CN1", inv={"VCPU": 4}, aggs=["agg"])
    env.rp("CN1_CHILD", parent="CN1")
    env.rp("CN2", inv={"VCPU": 4}, aggs=["agg"])
    env.rp("FULL", inv={"VCPU": 4}, aggs=["agg"])
    env.rp("SS", inv={"DISK_GB": 10}, traits=[SHARING], aggs=["agg"])
    env.rp("UNRELATED", inv={"MEMORY_MB": 10})
    env.consume({"FULL": {"VCPU": 4}})
    assert env.ok("resources=VCPU:1").names == {"CN1", "CN1_CHILD", "CN2"}
    assert env.ok("resources=VCPU:1,DISK_GB:1").names == {"CN1", "CN1_CHILD", "CN2", "SS"}


def test_limit_keeps_the_summaries_of_the_candidates_kept(env):
    for n in range(4):
        env.rp(f"CN{n}", inv={"VCPU": 4})
        env.rp(f"CHILD{n}", parent=f"CN{n}")
    answer = env.ok("resources=VCPU:1&limit=2")
    assert len(answer.requests) == 2
    kept = {name for candidate in answer.allocs for name, _, _ in candidate}
    assert answer.names == kept | {name.replace("CN", "CHILD") for name in kept}


def test_limit_keeps_the_sharing_providers_used(env):
    env.rp("CN", inv={"VCPU": 4}, aggs=["agg"])
    env.rp("SS", inv={"DISK_GB": 10}, traits=[SHARING], aggs=["agg"])
    answer = env.ok("resources=VCPU:1,DISK_GB:1&limit=1")
    assert answer.allocs == {alloc(CN={"VCPU": 1}, SS={"DISK_GB": 1})}
    assert answer.names == {"CN", "SS"}


def test_limit_before_1_29(env):
    for n in range(3):
        env.rp(f"CN{n}", inv={"VCPU": 4, "MEMORY_MB": 10})
    answer = env.ok("resources=VCPU:1&limit=1", "1.28")
    (candidate,) = answer.allocs
    assert answer.names == {name for name, _, _ in candidate}


def test_resourceless_provider_is_summarised_with_its_tree(env):
    env.rp("CN")
    env.rp("NIC", parent="CN", traits=["CUSTOM_NIC"])
    env.rp("PF", parent="NIC", inv={"SRIOV_NET_VF": 4})
    answer = env.ok("resources_V=SRIOV_NET_VF:1&required_N=CUSTOM_NIC&same_subtree=_V,_N"
                    "&group_policy=none")
    assert answer.names == {"CN", "NIC", "PF"}
    assert answer.summaries["NIC"]["resources"] == {}
    assert answer.summaries["NIC"]["traits"] == ["CUSTOM_NIC"]
