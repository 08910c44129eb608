"""The benchmark runner's pure parts: scenario shapes, load order, reporting.

No server and no timing assertions here.
"""

import json

from benchmarks import loader, runner, scenarios


def test_flat_scenario_counts():
    s = scenarios.flat()
    assert len(s.providers) == 1010
    assert len(s.aggregates()) == 20
    pools = [p for p in s.providers if "MISC_SHARES_VIA_AGGREGATE" in p.traits]
    assert len(pools) == 10
    nodes = [p for p in s.providers if p not in pools]
    assert sum("HW_CPU_X86_AVX2" in p.traits for p in nodes) == 500
    # every node shares an aggregate with exactly one pool
    assert all(sum(bool(set(n.aggregates) & set(p.aggregates)) for p in pools) == 1
               for n in nodes)
    assert len(s.allocations) == 3000
    assert s.custom_traits() == ["CUSTOM_GOLD"]


def test_flat_usage_is_about_thirty_percent():
    s = scenarios.flat()
    used = {}
    for alloc in s.allocations.values():
        for resources in alloc.values():
            for rc, n in resources.items():
                used[rc] = used.get(rc, 0) + n
    capacity = {}
    for p in s.providers:
        for rc, inv in p.inventories.items():
            ratio = inv.get("allocation_ratio", 1.0)
            capacity[rc] = capacity.get(rc, 0) + (inv["total"] - inv.get("reserved", 0)) * ratio
    for rc in ("VCPU", "MEMORY_MB", "DISK_GB"):
        assert 0.25 < used[rc] / capacity[rc] < 0.35, rc


def test_nested_tree_shape():
    s = scenarios.nested(hosts=3)
    assert len(s.providers) == 3 * 9
    levels = loader._levels(s.providers)
    assert [len(level) for level in levels] == [3, 6, 6, 12]
    pfs = levels[3]
    assert all("SRIOV_NET_VF" in p.inventories for p in pfs)
    assert {t for p in pfs for t in p.traits if "PHYSNET" in t} == {
        "CUSTOM_PHYSNET_NET0", "CUSTOM_PHYSNET_NET1"}
    # every allocation names providers of the scenario
    uuids = {p.uuid for p in s.providers}
    assert all(set(a) <= uuids for a in s.allocations.values())


def test_wide_queries_and_expected_counts():
    s = scenarios.wide()
    assert len(s.providers) == 50 * 9
    assert all(p.inventories["VGPU"]["total"] == 1 for p in s.providers if p.parent)
    by_name = {q.name: q for q in s.queries}
    assert by_name["8 gpu groups isolate"].expected == 40320 * 50
    assert by_name["8 gpu groups isolate limit"].expected == 1000
    assert all(q.target_ms == 200 for q in s.queries if q.limited)
    assert all(q.target_ms is None for q in s.queries if not q.limited)


class FakeClient:
    def __init__(self, count):
        self.body = json.dumps({"allocation_requests": [{}] * count,
                                "provider_summaries": {}}).encode()
        self.calls = 0

    def request(self, method, path):
        self.calls += 1
        return 200, self.body, 0.01


def test_run_query_counts_runs_and_candidates():
    s = scenarios.wide(hosts=1)
    client = FakeClient(3)
    result = runner.run_query(client, s, s.queries[0], repeat=4, server=None)
    assert client.calls == 5  # one warm-up
    assert result.candidates == 3
    assert result.note == "expected 8 candidates"
    assert result.path.startswith("/allocation_candidates?resources=VCPU")


def test_huge_unbounded_queries_are_skipped_unless_capped():
    s = scenarios.wide()
    query = next(q for q in s.queries if q.name == "8 gpu groups isolate")
    client = FakeClient(10)
    assert runner.run_query(client, s, query, 1, None).note.startswith("skipped")
    assert client.calls == 0
    assert runner.run_query(client, s, query, 1, None, cap=10).candidates == 10


def test_markdown_verdicts():
    rows = [runner.Result("wide", "a", median_ms=150.0, target_ms=200),
            runner.Result("wide", "b", median_ms=250.0, target_ms=200),
            runner.Result("wide", "c", median_ms=250.0)]
    table = runner.markdown(rows).splitlines()
    assert len(table) == 5
    assert [line.split("|")[11].strip() for line in table[2:]] == ["PASS", "MISS", "-"]
