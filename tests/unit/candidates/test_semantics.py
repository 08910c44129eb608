"""Engine options and the candidate objects themselves: what only the engine
shows (the cases the HTTP API shows too are data, in tests/helpers/candidate_cases)."""

import random

import pytest

from placer.candidates import search
from placer.schemas.allocation_candidates import parse_query
from tests.helpers.snapshots import World


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
