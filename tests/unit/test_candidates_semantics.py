"""Behaviours checked one by one against the reference server (placement 16.0.0)."""

import random

import pytest

from placer.candidates import search
from placer.candidates.parser import parse_query
from tests.helpers.snapshots import World, agg, allocs

AGG_A = agg("A")


def numa_host():
    w = World()
    w.add("cn", traits=["CUSTOM_ROOT"])
    w.add("n0", parent="cn", inv={"VCPU": 4}, traits=["HW_NUMA_ROOT"])
    w.add("n1", parent="cn", inv={"VCPU": 4}, traits=["HW_NUMA_ROOT"])
    w.add("cn2", inv={"VCPU": 4})
    return w


def _allocations(results):
    return {a for a, _ in results}


def test_unsuffixed_traits_count_only_on_the_providers_used():
    w = numa_host()
    # the root has the trait but gives nothing: no candidate
    assert w.query([("resources", "VCPU:1"), ("required", "CUSTOM_ROOT")]) == []
    assert _allocations(w.query([("resources", "VCPU:1"), ("required", "HW_NUMA_ROOT")])) == {
        allocs("n0:VCPU=1"),
        allocs("n1:VCPU=1"),
    }
    # root_required looks at the root whether it gives or not
    assert _allocations(w.query([("resources", "VCPU:1"), ("root_required", "CUSTOM_ROOT")])) == {
        allocs("n0:VCPU=1"),
        allocs("n1:VCPU=1"),
    }


def test_resourceless_group_quirks():
    w = numa_host()
    base = [("resources_a", "VCPU:1"), ("same_subtree", "_a,_b"), ("group_policy", "none")]
    # a resourceless group with no positive trait or aggregate matches nothing
    assert w.query(base + [("in_tree_b", w.uuid("cn"))]) == []
    assert w.query(base + [("required_b", "!CUSTOM_ROOT")]) == []
    # in_tree is ignored on a resourceless group
    found = w.query(base + [("required_b", "HW_NUMA_ROOT"), ("in_tree_b", w.uuid("cn2"))])
    assert set(found) == {
        (allocs(f"{n}:VCPU=1"), frozenset({("_a", frozenset({n})), ("_b", frozenset({n}))}))
        for n in ("n0", "n1")
    }
    # but an unknown in_tree provider empties the whole answer
    assert w.query(base + [("required_b", "HW_NUMA_ROOT"), ("in_tree_b", agg("nope"))]) == []
    # the root can be the resourceless group's provider, even with isolate
    found = w.query(base[:2] + [("required_b", "CUSTOM_ROOT"), ("group_policy", "isolate")])
    assert {m for _, m in found} == {
        frozenset({("_a", frozenset({n})), ("_b", frozenset({"cn"}))}) for n in ("n0", "n1")
    }
    # isolate keeps the resourceless group off the providers of the other groups
    isolate = base[:2] + [("required_b", "HW_NUMA_ROOT"), ("group_policy", "isolate")]
    assert w.query(isolate) == []


def test_before_1_29_one_provider_per_tree_and_summaries_are_providers_used():
    w = numa_host()
    w.add("cn3", inv={"VCPU": 4, "DISK_GB": 10})
    w.add("disk", parent="cn3", inv={"DISK_GB": 10})
    w.add("cpu", parent="cn3", inv={"VCPU": 4})
    snap = w.snapshot()
    request = parse_query([("resources", "VCPU:1,DISK_GB:1")], (1, 28))
    found = list(search.find_candidates(request, snap))
    assert {frozenset(c.allocations()) for c in found} == {frozenset({w.uuid("cn3")})}
    summary = search.summary_providers(found, request.nested_aware)
    assert [p.name for p in summary] == ["cn3"]

    request = parse_query([("resources", "VCPU:1")], (1, 28))
    found = list(search.find_candidates(request, snap))
    assert len(found) == 5
    summary = search.summary_providers(found, request.nested_aware)
    assert [p.name for p in summary] == ["n0", "n1", "cn2", "cn3", "cpu"]

    request = parse_query([("resources", "VCPU:1,DISK_GB:1")], (1, 29))
    found = list(search.find_candidates(request, snap))
    assert len(found) == 4  # cn3 or cpu for VCPU, cn3 or disk for DISK_GB
    summary = search.summary_providers(found, request.nested_aware)
    assert [p.name for p in summary] == ["cn3", "disk", "cpu"]


def test_capacity_and_max_unit_count_the_whole_candidate():
    w = World()
    w.add("cn", inv={"VCPU": {"total": 8, "max_unit": 3}}, used={"VCPU": 3})
    groups = [("resources", "VCPU:2"), ("resources1", "VCPU:1")]
    assert _allocations(w.query(groups)) == {allocs("cn:VCPU=3")}
    # 2 + 2 exceeds max_unit 3 although each group alone fits
    assert w.query([("resources", "VCPU:2"), ("resources1", "VCPU:2")]) == []
    w = World()
    w.add("cn", inv={"VCPU": 4}, used={"VCPU": 2})
    assert w.query([("resources", "VCPU:2"), ("resources1", "VCPU:1")]) == []
    assert _allocations(w.query([("resources", "VCPU:1"), ("resources1", "VCPU:1")])) == {
        allocs("cn:VCPU=2")
    }


def test_unit_rules_apply_per_group():
    w = World()
    w.add("cn", inv={"VCPU": {"total": 8, "min_unit": 2, "step_size": 2}})
    assert w.query([("resources", "VCPU:1")]) == []
    assert w.query([("resources", "VCPU:3")]) == []
    # each group's amount is checked alone; 2 + 2 is 4, a multiple of 2 anyway
    assert _allocations(w.query([("resources", "VCPU:2"), ("resources1", "VCPU:2")])) == {
        allocs("cn:VCPU=4")
    }
    w = World()
    w.add("cn", inv={"VCPU": {"total": 8, "allocation_ratio": 1.5, "reserved": 1}})
    assert w.query([("resources", "VCPU:11")]) == []
    assert _allocations(w.query([("resources", "VCPU:10")])) == {allocs("cn:VCPU=10")}


def sharing_world():
    w = World()
    w.add("ss", inv={"DISK_GB": 100}, aggs=["A"], sharing=True)
    w.add("cn1", inv={"VCPU": 4}, aggs=["A"], traits=["CUSTOM_GOLD"])
    w.add("cn2", inv={"VCPU": 4}, aggs=["A"])
    return w


def test_candidates_made_only_of_sharing_providers_come_once():
    w = sharing_world()
    # ss serves cn1, cn2 and itself: one candidate all the same
    assert w.query([("resources", "DISK_GB:10")]) == [
        (allocs("ss:DISK_GB=10"), frozenset({("", frozenset({"ss"}))}))
    ]
    # root_required is judged on an anchor, even one giving nothing
    found = w.query([("resources", "DISK_GB:10"), ("root_required", "CUSTOM_GOLD")])
    assert _allocations(found) == {allocs("ss:DISK_GB=10")}


def test_sharing_provider_serves_each_tree_it_shares_an_aggregate_with():
    w = sharing_world()
    found = w.query([("resources", "VCPU:1"), ("resources1", "DISK_GB:10")])
    assert _allocations(found) == {
        allocs("cn1:VCPU=1", "ss:DISK_GB=10"),
        allocs("cn2:VCPU=1", "ss:DISK_GB=10"),
    }
    # a sharing provider without the trait serves nobody else
    w = World()
    w.add("nfs", inv={"DISK_GB": 100}, aggs=["A"])
    w.add("cn1", inv={"VCPU": 4}, aggs=["A"])
    assert w.query([("resources", "VCPU:1,DISK_GB:10")]) == []


def test_sharing_through_a_nested_provider_aggregate():
    w = World()
    w.add("ss", inv={"DISK_GB": 100}, aggs=["A"], sharing=True)
    w.add("cn", inv={"MEMORY_MB": 64})
    w.add("numa", parent="cn", inv={"VCPU": 4}, aggs=["A"])
    assert _allocations(w.query([("resources", "VCPU:1,MEMORY_MB:1,DISK_GB:1")])) == {
        allocs("numa:VCPU=1", "cn:MEMORY_MB=1", "ss:DISK_GB=1")
    }
    # member_of on the unsuffixed group: the provider or the anchor root must match;
    # a sharing provider must match itself to serve another tree
    assert w.query([("resources", "VCPU:1,DISK_GB:1"), ("member_of", AGG_A)]) != []
    w.add("ss2", inv={"DISK_GB": 100}, aggs=["A"], sharing=True)
    found = w.query([("resources", "VCPU:1,DISK_GB:1"), ("member_of", agg("B"))])
    assert found == []


def test_permutations_of_identical_providers_are_distinct_candidates():
    w = World()
    w.add("host", inv={"VCPU": 8})
    for i in range(3):
        w.add(f"gpu{i}", parent="host", inv={"VGPU": 1})
    request = [(f"resources{i}", "VGPU:1") for i in range(1, 4)] + [("group_policy", "isolate")]
    found = w.query(request)
    assert len(found) == 6  # 3! mappings, one allocation
    assert _allocations(found) == {allocs("gpu0:VGPU=1", "gpu1:VGPU=1", "gpu2:VGPU=1")}
    assert len(set(found)) == 6


def test_limit_max_candidates_and_strategies():
    w = World()
    for host in range(3):
        w.add(f"h{host}", inv={"VCPU": 2})
        for child in range(2):
            w.add(f"h{host}c{child}", parent=f"h{host}", inv={"VCPU": 1})
    snap = w.snapshot()
    request = parse_query([("resources", "VCPU:1")], (1, 39))
    every = [c.groups[""][0][0].name for c in search.find_candidates(request, snap)]
    assert every == ["h0", "h0c0", "h0c1", "h1", "h1c0", "h1c1", "h2", "h2c0", "h2c1"]
    breadth = search.find_candidates(request, snap, strategy="breadth-first")
    assert [c.groups[""][0][0].name for c in breadth][:3] == ["h0", "h1", "h2"]
    assert len(list(search.find_candidates(request, snap, limit=4))) == 4
    assert len(list(search.find_candidates(request, snap, max_candidates=5))) == 5
    # like upstream, a bound of 0 still lets one through
    assert len(list(search.find_candidates(request, snap, max_candidates=0))) == 1
    limited = parse_query([("resources", "VCPU:1"), ("limit", "2")], (1, 39))
    assert len(list(search.find_candidates(limited, snap))) == 2
    shuffled = search.find_candidates(request, snap, rng=random.Random(7))
    names = [c.groups[""][0][0].name for c in shuffled]
    assert sorted(names) == sorted(every)
    again = search.find_candidates(request, snap, rng=random.Random(7))
    assert [c.groups[""][0][0].name for c in again] == names
    with pytest.raises(ValueError):
        list(search.find_candidates(request, snap, strategy="sideways"))


def test_candidate_rendering_helpers():
    w = World()
    w.add("cn", inv={"VCPU": 4, "MEMORY_MB": 64})
    w.add("numa", parent="cn", inv={"VCPU": 4}, traits=["HW_NUMA_ROOT"])
    request = parse_query(
        [
            ("resources", "VCPU:1,MEMORY_MB:8"),
            ("resources_X", "VCPU:2"),
            ("required_N", "HW_NUMA_ROOT"),
            ("same_subtree", "_X,_N"),
            ("group_policy", "none"),
        ],
        (1, 39),
    )
    snap = w.snapshot()
    found = list(search.find_candidates(request, snap))
    assert len(found) == 4  # VCPU of each group from cn or numa
    (first,) = [
        c for c in found if c.mappings()["_X"] == [w.uuid("numa")] and len(c.groups[""]) == 1
    ]
    assert first.anchor.name == "cn"
    assert list(first.groups) == ["", "_X", "_N"]
    assert first.groups["_N"] == [(snap.by_uuid[w.uuid("numa")], {})]
    assert first.allocations() == {
        w.uuid("cn"): {"VCPU": 1, "MEMORY_MB": 8},
        w.uuid("numa"): {"VCPU": 2},
    }
    assert first.mappings() == {
        "": [w.uuid("cn")],
        "_X": [w.uuid("numa")],
        "_N": [w.uuid("numa")],
    }
    assert [p.name for p in first.resource_providers()] == ["cn", "numa"]
