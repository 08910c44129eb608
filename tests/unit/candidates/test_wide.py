"""Wide symmetric trees: the shape that explodes upstream must stay cheap.

No timing assertions: the counts show that generation stops at the limit and
that hopeless requests end without walking the permutations.
"""

import itertools

import pytest

from placer.candidates import search
from placer.schemas.allocation_candidates import parse_query
from tests.helpers.snapshots import World


def gpu_host(gpus=8, per_gpu=1, numa=1):
    w = World()
    w.add("host", inv={"VCPU": 64, "MEMORY_MB": 65536})
    for n in range(numa):
        w.add(f"numa{n}", parent="host", traits=["HW_NUMA_ROOT"])
        for g in range(gpus // numa):
            w.add(f"gpu{n}_{g}", parent=f"numa{n}", inv={"VGPU": per_gpu})
    return w


def gpu_groups(count, policy="isolate", limit=None):
    pairs = [("resources", "VCPU:1,MEMORY_MB:1024")]
    pairs += [(f"resources{i}", "VGPU:1") for i in range(1, count + 1)]
    pairs.append(("group_policy", policy))
    if limit:
        pairs.append(("limit", str(limit)))
    return parse_query(pairs, (1, 39))


def check(candidate, count):
    gpus = [candidate.groups[str(i)][0][0] for i in range(1, count + 1)]
    assert all(p.name.startswith("gpu") for p in gpus)
    return tuple(p.name for p in gpus)


def test_eight_gpus_eight_groups_isolate_first_thousand():
    snap = gpu_host().snapshot()
    found = list(search.find_candidates(gpu_groups(8, limit=1000), snap))
    assert len(found) == 1000
    orders = [check(c, 8) for c in found]
    assert all(len(set(order)) == 8 for order in orders)  # isolated
    assert len(set(orders)) == 1000  # all different mappings
    for c in found:
        assert c.allocations()[c.groups[""][0][0].uuid] == {"VCPU": 1, "MEMORY_MB": 1024}


def test_the_whole_answer_is_every_permutation():
    snap = gpu_host(gpus=5).snapshot()
    found = [check(c, 5) for c in search.find_candidates(gpu_groups(5), snap)]
    assert sorted(found) == sorted(itertools.permutations([f"gpu0_{g}" for g in range(5)]))


def test_policy_none_with_room_for_two_per_gpu():
    snap = gpu_host(gpus=4, per_gpu=2).snapshot()
    found = [check(c, 5) for c in search.find_candidates(gpu_groups(5, policy="none"), snap)]
    expected = [
        combo
        for combo in itertools.product([f"gpu0_{g}" for g in range(4)], repeat=5)
        if max(combo.count(name) for name in set(combo)) <= 2
    ]
    assert sorted(found) == sorted(expected)


@pytest.mark.parametrize("policy", ["isolate", "none"])
def test_one_group_too_many_finds_nothing_quickly(policy):
    snap = gpu_host(gpus=16).snapshot()
    assert list(search.find_candidates(gpu_groups(17, policy=policy), snap)) == []


def test_same_subtree_that_cannot_fit_one_numa_node_ends_quickly():
    # 12 groups must share a NUMA node but each node only has 8 GPUs:
    # the confinement below the chosen node makes this fail at once.
    w = gpu_host(gpus=16, numa=2)
    pairs = [("required_N", "HW_NUMA_ROOT")]
    pairs += [(f"resources_G{i}", "VGPU:1") for i in range(12)]
    pairs += [
        ("same_subtree", ",".join(["_N"] + [f"_G{i}" for i in range(12)])),
        ("group_policy", "isolate"),
    ]
    request = parse_query(pairs, (1, 39))
    assert list(search.find_candidates(request, w.snapshot())) == []
    # with eight groups it fits, on either node
    pairs = [("required_N", "HW_NUMA_ROOT")]
    pairs += [(f"resources_G{i}", "VGPU:1") for i in range(8)]
    pairs += [
        ("same_subtree", ",".join(["_N"] + [f"_G{i}" for i in range(8)])),
        ("group_policy", "isolate"),
        ("limit", "100"),
    ]
    found = list(search.find_candidates(parse_query(pairs, (1, 39)), w.snapshot()))
    assert len(found) == 100
    for c in found:
        node = c.groups["_N"][0][0]
        assert all(c.groups[f"_G{i}"][0][0].parent_id == node.id for i in range(8))


def test_many_hosts_breadth_first_spreads_over_roots():
    w = World()
    for h in range(50):
        w.add(f"h{h}", inv={"VCPU": 8})
        for g in range(8):
            w.add(f"h{h}g{g}", parent=f"h{h}", inv={"VGPU": 1})
    request = parse_query(
        [("resources", "VCPU:1")]
        + [(f"resources{i}", "VGPU:1") for i in range(1, 9)]
        + [("group_policy", "isolate"), ("limit", "100")],
        (1, 39),
    )
    found = list(search.find_candidates(request, w.snapshot(), strategy="breadth-first"))
    assert len(found) == 100
    assert len({c.anchor.name for c in found}) == 50
    found = list(search.find_candidates(request, w.snapshot(), max_candidates=30))
    assert len(found) == 30
    assert {c.anchor.name for c in found} == {"h0"}
