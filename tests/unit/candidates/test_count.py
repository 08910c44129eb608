"""The copy count of candidates/count.py on hand-made snapshots: its
closed forms, the integer program, the budget and the shared pools (the
database property tests compare it with brute force on every backend)."""

from unittest import mock

from placer.candidates import count as counting
from placer.candidates import program as integer_program
from placer.schemas.allocation_candidates import parse_query
from tests.helpers.snapshots import World


def count(w: World, query: str, budget: float = 10.0) -> counting.Count:
    request = parse_query([tuple(p.split("=", 1)) for p in query.split("&")], (1, 39))
    return counting.count(request, [w.snapshot()], budget)


def fits(result: counting.Count) -> dict:
    return {r.root.name: r.fits for r in result.roots}


def numa(w: World, name: str, vcpus=(4, 4), used=(0, 0)):
    w.add(name)
    for n, (total, in_use) in enumerate(zip(vcpus, used, strict=True)):
        w.add(f"{name}-{n}", parent=name, inv={"VCPU": total, "MEMORY_MB": 4096},
              used={"VCPU": in_use})


def test_flat_host_is_the_least_quotient():
    w = World()
    w.add("h", inv={"VCPU": {"total": 10, "allocation_ratio": 2.0}, "MEMORY_MB": 1000},
          used={"VCPU": 3})
    result = count(w, "resources=VCPU:2,MEMORY_MB:100")
    assert fits(result) == {"h": 8} and result.total == 8  # (20 - 3) // 2


def test_granular_group_sums_its_providers_and_unsuffixed_sums_per_class():
    w = World()
    numa(w, "n", vcpus=(4, 3), used=(1, 0))
    assert fits(count(w, "resources1=VCPU:2,MEMORY_MB:1024")) == {"n": 2}  # 3//2 + 3//2
    # VCPU from either node (3 + 3), memory from either (4 + 4)
    assert fits(count(w, "resources=VCPU:1,MEMORY_MB:1024")) == {"n": 6}


def test_isolate_goes_to_the_integer_program():
    w = World()
    numa(w, "n", vcpus=(5, 1))
    with mock.patch.object(integer_program, "program", wraps=integer_program.program) as program:
        result = count(w, "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate")
    # each copy takes one VCPU from each node: node 1 holds one
    assert fits(result) == {"n": 1} and result.roots[0].exact
    assert program.call_count == 0  # one distinct candidate: its own quotient
    w = World()
    numa(w, "n", vcpus=(4, 4))
    w.add("n-2", parent="n", inv={"VCPU": 2, "MEMORY_MB": 4096})
    with mock.patch.object(integer_program, "program", wraps=integer_program.program) as program:
        result = count(w, "resources1=VCPU:2&resources2=VCPU:2&group_policy=isolate")
    # pairs of distinct nodes, 2 VCPU each from 4, 4 and 2: five pairs' worth
    assert fits(result) == {"n": 2} and result.roots[0].exact
    assert program.call_count == 1


def test_alike_trees_are_solved_once():
    w = World()
    for h in range(5):
        numa(w, f"h{h}", vcpus=(4, 2))
    with mock.patch.object(integer_program, "program", wraps=integer_program.program) as program:
        result = count(w, "resources=VCPU:1&resources1=VCPU:1&resources2=VCPU:1"
                          "&group_policy=isolate")
    assert program.call_count == 1
    # node 1 gives one VCPU to each copy: two copies a host
    assert set(fits(result).values()) == {2} and result.total == 10


def test_no_budget_answers_a_lower_bound_marked_inexact():
    w = World()
    numa(w, "n", vcpus=(4, 4))
    w.add("n-2", parent="n", inv={"VCPU": 2, "MEMORY_MB": 4096})
    result = count(w, "resources1=VCPU:2&resources2=VCPU:2&group_policy=isolate", budget=0)
    assert 1 <= result.roots[0].fits <= 2
    assert not result.roots[0].exact and result.inexact == 1


THREE_GROUPS = "resources1=VCPU:1&resources2=VCPU:1&resources3=VCPU:1&group_policy=none"


def test_too_many_candidates_to_list_are_inexact():
    w = World()
    numa(w, "n", vcpus=(4, 4))
    with mock.patch.object(counting, "MAX_VECTORS", 1):
        result = count(w, THREE_GROUPS)
    assert not result.roots[0].exact
    assert count(w, THREE_GROUPS).roots[0].fits == 2


def test_a_shared_pool_counts_once_in_the_total():
    w = World()
    for h in range(3):
        w.add(f"h{h}", inv={"VCPU": 8}, aggs=["a"])
    w.add("pool", inv={"DISK_GB": 100}, aggs=["a"], sharing=True)
    result = count(w, "resources=VCPU:1,DISK_GB:20")
    # each host alone could take the pool's 5 copies; together they share them
    assert fits(result) == {"h0": 5, "h1": 5, "h2": 5}
    assert result.total == 5 and result.total_exact
    w.add("h3", inv={"VCPU": 2})  # in no aggregate: its own 2, no disk
    assert count(w, "resources=VCPU:1,DISK_GB:20").total == 5
    assert count(w, "resources=VCPU:1").total == 26
