"""GET /capacity's counts against brute force, on every backend.

Random worlds (tests/helpers/worlds.py: flat hosts, trees, sharing
providers, traits, aggregates, every group rule) are written to the
database and counted through the candidate service; brute force lists each
root's candidates by trying every provider for every slot
(tests/helpers/brute_force.py), then the most of them that fit at once by
trying every count of each. Shaped worlds (NUMA pairs, PFs with VFs, hosts
with a shared pool) add the trees where a count is not a per-class
quotient. A floor makes sure enough examples count two copies or more in a
tree, so the property cannot pass on trivial answers.
"""


from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placer.candidates import service
from placer.candidates.snapshot import Snapshot
from placer.db import class_totals
from placer.db.candidates import CandidateStore
from placer.db.resource_providers import ProviderFilter
from placer.schemas.allocation_candidates import parse_query
from tests.helpers import stored_worlds
from tests.helpers.brute_force import by_anchor, most_copies
from tests.helpers.floors import answered, at_least, examples
from tests.helpers.snapshots import World
from tests.helpers.worlds import queries, worlds

SHAPED = {
    "flat": ["resources=VCPU:2,MEMORY_MB:512", "resources=VCPU:1&resources1=VCPU:2"
             "&group_policy=none", "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate",
             "resources=VCPU:1,MEMORY_MB:512&required=!CUSTOM_A",
             "resources1=VCPU:2&required1=CUSTOM_A&resources2=MEMORY_MB:1024"
             "&group_policy=none"],
    "numa": ["resources=VCPU:1,MEMORY_MB:512", "resources1=VCPU:2,MEMORY_MB:512",
             "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate",
             "resources1=VCPU:2&resources2=MEMORY_MB:1024&group_policy=none"
             "&same_subtree=1,2",
             "resources=VCPU:3&resources1=MEMORY_MB:1024"],
    "pf": ["resources=VCPU:1&resources1=SRIOV_NET_VF:1",
           "resources1=SRIOV_NET_VF:2&resources2=SRIOV_NET_VF:1&group_policy=isolate",
           "resources=SRIOV_NET_VF:3"],
    "pool": ["resources=VCPU:1,DISK_GB:20", "resources=VCPU:2&resources1=DISK_GB:30",
             "resources=DISK_GB:25"],
}


@st.composite
def shaped(draw):
    shape = draw(st.sampled_from(sorted(SHAPED)))
    w = World()
    for h in range(draw(st.integers(1, 3))):
        host = f"h{h}"
        if shape == "flat":
            total = draw(st.integers(1, 12))
            w.add(host, inv={"VCPU": {"total": total, "reserved": draw(st.sampled_from([0, 1])),
                                      "min_unit": draw(st.sampled_from([1, 1, 2])),
                                      "max_unit": draw(st.sampled_from([total, 2, 3])),
                                      "step_size": draw(st.sampled_from([1, 1, 2])),
                                      "allocation_ratio": draw(st.sampled_from([1.0, 1.5]))},
                             "MEMORY_MB": 512 * draw(st.integers(1, 8))},
                  traits=draw(st.sampled_from([[], ["CUSTOM_A"]])),
                  used={"VCPU": draw(st.integers(0, 1))})
        elif shape == "numa":
            w.add(host)
            for n in range(2):
                w.add(f"{host}n{n}", parent=host,
                      inv={"VCPU": draw(st.integers(1, 6)),
                           "MEMORY_MB": 512 * draw(st.integers(1, 6))},
                      used={"VCPU": draw(st.integers(0, 1))})
        elif shape == "pf":
            w.add(host, inv={"VCPU": draw(st.integers(1, 4))})
            for f in range(draw(st.integers(1, 3))):
                w.add(f"{host}pf{f}", parent=host,
                      inv={"SRIOV_NET_VF": {"total": draw(st.integers(1, 6)),
                                            "max_unit": draw(st.sampled_from([2, 6]))}})
        else:
            w.add(host, inv={"VCPU": draw(st.integers(1, 8))}, aggs=["a"])
    if shape == "pool":
        w.add("pool", inv={"DISK_GB": draw(st.integers(20, 120))}, aggs=["a"], sharing=True)
    query = draw(st.sampled_from(SHAPED[shape]))
    return w.snapshot(), parse_query([tuple(p.split("=", 1)) for p in query.split("&")],
                                     (1, 39))


def _check(store, snap, request):
    stored_worlds.store(store, snap)
    counted = store.read(lambda conn: service.count_one(CandidateStore(conn), request, 10.0))
    expected = {root: most_copies(allocs, snap)
                for root, allocs in by_anchor(request, snap).items()}
    got = {r.root.uuid: r.fits for r in counted.roots}
    assert got == {root: k for root, k in expected.items() if k >= 1}
    assert all(r.exact for r in counted.roots) and counted.total_exact
    # a root is counted exactly when GET /allocation_candidates finds it
    # (but for a root whose candidates use sharing providers alone: those
    # are listed once, under the first root that has them)
    found, _ = store.read(lambda conn: service.find(CandidateStore(conn), request))
    anchors = {c.anchor.uuid for c in found}
    assert anchors <= set(got)
    assert all(snap.by_uuid[u].is_sharing for root in set(got) - anchors
               for a in by_anchor(request, snap)[root] for u, _, _ in a)
    every = set().union(*by_anchor(request, snap).values())
    assert counted.total == most_copies(every, snap) if every else counted.total == 0
    # the floor: two copies or more in a tree of several providers
    answered([root for root, k in got.items()
              if k >= 2 and len(snap.tree(snap.by_uuid[root].id)) > 1])


@at_least(10)  # 22 to 48 of 100 seen
@settings(max_examples=examples(100),
          suppress_health_check=[HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_worlds_count_as_brute_force(store, data):
    snap = data.draw(worlds())
    _check(store, snap, data.draw(queries(snap)))


# which drawn worlds are kept depends a little on the backend: with 60
# examples PostgreSQL's run had 12 with an answer
@at_least(15)
@settings(max_examples=examples(100),
          suppress_health_check=[HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_shaped_trees_count_as_brute_force(store, data):
    snap, request = data.draw(shaped())
    _check(store, snap, request)


def test_snapshot_helper_is_whole():
    # by_anchor sees every root of a world, including those of sharing pools
    w = World()
    w.add("h", inv={"VCPU": 2}, aggs=["a"])
    w.add("pool", inv={"DISK_GB": 10}, aggs=["a"], sharing=True)
    snap: Snapshot = w.snapshot()
    request = parse_query([("resources", "VCPU:1,DISK_GB:5")], (1, 39))
    found = by_anchor(request, snap)
    assert list(found) == [snap.by_uuid[w.providers["h"].uuid].uuid]
    assert most_copies(found[w.providers["h"].uuid], snap) == 2


@at_least(10)
@settings(max_examples=examples(60),
          suppress_health_check=[HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_summary_sums_every_provider(store, data):
    snap = data.draw(worlds())
    stored_worlds.store(store, snap)
    got = store.read(lambda conn: class_totals.summary(conn, ProviderFilter()))
    expected: dict[str, dict[str, int]] = {}
    for p in snap.providers.values():
        for rc, inv in p.inventories.items():
            sums = expected.setdefault(rc, {"capacity": 0, "used": 0, "free": 0})
            used = p.usages.get(rc, 0)
            sums["capacity"] += inv.capacity
            sums["used"] += used
            sums["free"] += max(inv.capacity - used, 0)
    assert got.get(None, {}) == dict(sorted(answered(expected).items()))
